import { readFile } from 'node:fs/promises';
import { join } from 'node:path';

/** The documents a Q&A agent (`include_docs: true`) reads, relative to the repository root. */
const DOC_FILES = ['README.md', 'spec/hop-protocol.md'] as const;

/**
 * Reads the project's own documentation at start-up, so the Q&A agent describes the editor and protocol as they
 * are. A missing file is skipped (a deployment may ship without the repository).
 */
export async function loadProjectDocs(rootDir: string, files: readonly string[] = DOC_FILES): Promise<string> {
  const parts: string[] = [];
  for (const file of files) {
    try {
      const text = await readFile(join(rootDir, file), 'utf8');
      parts.push(`## ${file}\n\n${text.trim()}`);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
  return parts.join('\n\n');
}
