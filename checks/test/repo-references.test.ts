import { strict as assert } from 'node:assert';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';

// Comments and messages cite only what the repository holds: `spec §N` (or `spec/hop-protocol.md §N`) with a section
// number that is a heading of spec/hop-protocol.md, `conformance.md §N` with one of spec/conformance.md, and files of
// the repository. A design brief, a toolchain note or an issue tracker the repository does not contain is a dead end
// for a reader, and a bare `§N` does not say which document it numbers (old ones followed another document's numbers).

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const self = fileURLToPath(import.meta.url);

/** The section numbers of a markdown document's numbered headings (`## 3. Endpoints`, `### 3.1 …`), with titles. */
function sectionsOf(file: string): Map<string, string> {
  const sections = new Map<string, string>();
  for (const [, number, title] of readFileSync(join(root, file), 'utf8').matchAll(/^#{2,6} (\d+(?:\.\d+)*)\.? (.+)$/gm))
    sections.set(number!, title!.trim());
  return sections;
}
const documents = {
  spec: { file: 'spec/hop-protocol.md', sections: sectionsOf('spec/hop-protocol.md') },
  conformance: { file: 'spec/conformance.md', sections: sectionsOf('spec/conformance.md') },
};

const SOURCE = /\.(?:[cm]?[jt]s|json|sh|css|ya?ml)$/;
const SKIPPED = new Set(['node_modules', 'dist', '.tools', 'coverage']);

/** Every file under `dir` (relative to the root) with a source or config extension; nothing if it does not exist. */
function filesUnder(dir: string): string[] {
  const path = join(root, dir);
  if (!existsSync(path)) return [];
  return readdirSync(path).flatMap((name) => {
    if (SKIPPED.has(name)) return [];
    const child = join(dir, name);
    if (statSync(join(root, child)).isDirectory()) return filesUnder(child);
    return SOURCE.test(name) ? [child] : [];
  });
}

/** The files scanned: every package's src/, test/, scripts/ and root config files, bench's, checks', and scripts/. */
function scannedFiles(): string[] {
  const packages = readdirSync(join(root, 'packages')).map((name) => join('packages', name));
  const configs = packages.flatMap((dir) =>
    readdirSync(join(root, dir))
      .filter((name) => /\.config\.[cm]?[jt]s$/.test(name))
      .map((name) => join(dir, name)),
  );
  return [
    ...[...packages, 'bench', 'checks'].flatMap((dir) =>
      ['src', 'test', 'scripts'].flatMap((sub) => filesUnder(join(dir, sub))),
    ),
    ...configs,
    ...filesUnder('scripts'),
  ]
    .filter((file) => join(root, file) !== self)
    .sort();
}

/** Out-of-repo references: what each pattern finds, and what to write instead. */
const DEAD_ENDS: Array<[RegExp, string]> = [
  [/\bDESIGN(?:\s*§|\.md\b|:)/, 'cites the design brief, which is not in the repository: cite spec §N or explain here'],
  [/\bTOOLCHAIN\.md\b/, 'cites TOOLCHAIN.md, which is not in the repository: explain here or cite a README'],
  [/\bissue #\d+/i, 'cites an issue tracker: name the file that holds the decision (a README, bench/README.md)'],
  [/(?<![\w.-])\/(?:work|home|Users|root|mnt)\//, 'names an absolute path outside the repository'],
  [/(?:^|[^\w.])\.\.\/shared\b/, 'names ../shared, outside the repository'],
];

/** The problems of one line, each as a reason. */
function lineProblems(file: string, line: string): string[] {
  const problems = DEAD_ENDS.filter(([pattern]) => pattern.test(line)).map(([, why]) => why);
  // A relative path in quotes that climbs out of the repository from this file's folder.
  for (const [, path] of line.matchAll(/['"`]((?:\.\.\/)+[^'"`]*)['"`]/g)) {
    const target = resolve(root, dirname(file), path!);
    if (target !== root && !target.startsWith(`${root}${sep}`))
      problems.push(`"${path}" climbs out of the repository (to ${target})`);
  }
  problems.push(...sectionProblems(line));
  return problems;
}

/**
 * Every `§` of a line must say which document it numbers and name a section that exists: `spec §N`,
 * `spec/hop-protocol.md §N`, `conformance.md §N`, a list after one of them (`spec §2, §13`, `spec §4 and §7`), a
 * markdown link `[§N](#anchor)` inside the spec, or the kit's `§N Title` form with the heading's exact title.
 */
function sectionProblems(line: string): string[] {
  const problems: string[] = [];
  const cited = new Set<number>();
  // A number may carry a title in quotes (`spec §8.2 "Retries and replay", §4.2 "Sessions…`, `spec §2, "…"; §8.5`).
  const title = '(?:,? "[^"]*"?)?';
  const item = String.raw`§(\d+(?:\.\d+)*)${title}`;
  const list = String.raw`((?:(?:,|;| and| or) §\d+(?:\.\d+)*${title})*)`;
  const citation = new RegExp(String.raw`\b(spec(?:\/hop-protocol\.md)?|conformance\.md|DESIGN) ${item}${list}`, 'g');
  for (const match of line.matchAll(citation)) {
    for (let at = match.index; at < match.index + match[0].length; at += 1) if (line[at] === '§') cited.add(at);
    if (match[1] === 'DESIGN') continue; // reported as a dead end already
    const document = match[1] === 'conformance.md' ? documents.conformance : documents.spec;
    const numbers = [match[2]!, ...[...match[3]!.matchAll(/§(\d+(?:\.\d+)*)/g)].map((listed) => listed[1]!)];
    for (const number of numbers)
      if (!document.sections.has(number)) problems.push(`§${number} is not a section of ${document.file}`);
  }
  for (const match of line.matchAll(/§/g)) {
    if (cited.has(match.index)) continue;
    const after = line.slice(match.index + 1);
    if (after.startsWith('${')) continue; // a template that prints a section computed at run time
    const link = /^(\d+(?:\.\d+)*)\]\(#/.exec(after);
    const titled = /^(\d+(?:\.\d+)*) (.+)/.exec(after);
    if (link && documents.spec.sections.has(link[1]!)) continue;
    const title = titled ? documents.spec.sections.get(titled[1]!) : undefined;
    if (title !== undefined && titled![2]!.startsWith(title)) continue;
    problems.push(`a bare "§${after.slice(0, 12)}…" does not say which document it numbers: write spec §N`);
  }
  return problems;
}

describe('references in source, test and config files', () => {
  const files = scannedFiles();

  it('scans the files of every package, bench and scripts', () => {
    for (const dir of ['packages/protocol/src', 'packages/reference-server/src', 'bench/src', 'checks/src', 'scripts'])
      assert.ok(
        files.some((file) => file.startsWith(dir)),
        `no file scanned under ${dir}`,
      );
    assert.ok(files.length > 100, `only ${files.length} files scanned`);
  });

  it('cite only documents of the repository, and spec sections that exist', () => {
    const found: string[] = [];
    for (const file of files) {
      readFileSync(join(root, file), 'utf8')
        .split('\n')
        .forEach((line, index) => {
          for (const problem of lineProblems(file, line))
            found.push(
              `${relative(root, join(root, file))}:${index + 1}: ${problem}\n    ${line.trim().slice(0, 160)}`,
            );
        });
    }
    assert.deepEqual(found, [], `${found.length} references to fix:\n${found.join('\n')}`);
  });
});

describe('the reference rules themselves', () => {
  it('accept a spec section that exists, in every citation form', () => {
    for (const line of [
      '// the tools (spec §12) and the cancel (spec/hop-protocol.md §8.5)',
      '/** a turn has at most max_hops + 1 hops (spec §2, §13); item 5 of conformance.md §3 */',
      "const spec = '§8.2 Retries and replay';",
      '// spec §8.2 "Retries and replay", §4.2 "Sessions and',
      ' * The client\'s side of a turn (spec §2, "The client\'s side of a turn"; §8.5 "Cancel"): one turn is',
      ' * Serializes a built request for its transport (spec §4.1, §4.3): `multipart/form-data` with one',
      'see [§2](#2-a-turn-step-by-step)',
      // A template printing a section computed at run time (split so that it is not a template here).
      `return \`§$\{section.number} \${section.title}\`;`,
    ])
      assert.deepEqual(lineProblems('packages/protocol/src/x.ts', line), [], line);
  });

  it('refuse a missing section, a bare §, the design brief, an issue and a path out of the repository', () => {
    const refused = (line: string) => lineProblems('packages/protocol/src/x.ts', line);
    assert.match(refused('// (spec §99)')[0]!, /§99 is not a section of spec\/hop-protocol\.md/);
    assert.match(refused('// (spec §2, §8.9)')[0]!, /§8\.9 is not a section/);
    assert.match(refused('// (spec §2 "A turn"; §8.9 "Nothing")')[0]!, /§8\.9 is not a section/);
    assert.match(refused('// the tools (§5)')[0]!, /bare "§5\)/);
    assert.match(refused('// (§ Versioning of the spec)')[0]!, /bare "§ Versioning/);
    assert.match(refused("const s = '§8.2 Replays';")[0]!, /bare/, 'a title that is not the heading');
    assert.equal(refused('// THE HOP (DESIGN §2)').length, 1);
    assert.equal(refused('// see TOOLCHAIN.md').length, 1);
    assert.equal(refused('// targets of Issue #8').length, 1);
    assert.equal(refused("const dir = '/work/shared/x';").length, 1);
    assert.match(refused("import x from '../../../../outside/x.js';")[0]!, /climbs out of the repository/);
    assert.deepEqual(refused("import x from '../../../fixtures/x.js';"), [], 'inside the repository');
  });
});
