/**
 * A command line a CLI cannot run: the CLI prints the message and its help, and exits with status 2. One class for
 * every command line of the project (the reference server's and the conformance kit's), so a script driving both
 * tells a usage mistake from a failure the same way.
 */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}
