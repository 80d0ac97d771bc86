/** A start-up configuration problem: every line names the file (or environment), the key, and the fix. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
  /** One line per problem: `<file>: <key>: <what is wrong and how to fix it>`. */
  readonly problems: string[];

  constructor(problems: string[], options?: ErrorOptions) {
    super(
      problems.length === 1
        ? problems[0]!
        : `${problems.length} configuration problems:\n${problems.map((p) => `  ${p}`).join('\n')}`,
      options,
    );
    this.problems = problems;
  }
}
