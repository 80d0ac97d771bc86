/** One MUST (or MUST NOT) statement of a spec document: the sentence that holds it and the section it is in. */
export interface MustStatement {
  /** `hop-protocol.md` or `conformance.md`. */
  document: string;
  /** The number of the section it is in (`8.5`). */
  section: string;
  /** The sentence, whitespace collapsed. */
  sentence: string;
}

/**
 * Every sentence of a markdown document that says MUST (MUST NOT included), with the number of the section it is in:
 * paragraphs, list items and table rows are cut into sentences; code blocks, the RFC 2119 key-words sentence and
 * headings are left out. The MUST → check matrix (spec/conformance.md §6) is held to this list.
 */
export function extractMusts(document: string, markdown: string): MustStatement[] {
  const statements: MustStatement[] = [];
  let section = '0';
  let inCode = false;
  let unit: string[] = [];
  const flush = () => {
    const text = unit.join(' ').replace(/\s+/g, ' ').trim();
    unit = [];
    if (text === '') return;
    for (const sentence of splitSentences(text)) {
      if (/\bMUST\b/.test(sentence) && !sentence.includes('**MUST**')) statements.push({ document, section, sentence });
    }
  };
  for (const line of markdown.split('\n')) {
    if (line.startsWith('```')) {
      flush();
      inCode = !inCode;
      continue;
    }
    if (inCode) continue;
    const heading = /^#{1,6} (\d+(?:\.\d+)*)\.? /.exec(line);
    if (heading) {
      flush();
      section = heading[1]!;
      continue;
    }
    if (/^#{1,6} /.test(line) || line.trim() === '') {
      flush();
      continue;
    }
    // A list item or a table row starts a unit of its own; an indented line continues the item above it.
    if (/^\s*(?:[-*]|\d+\.) /.test(line) || line.startsWith('|')) flush();
    unit.push(line.startsWith('|') ? line.replace(/\|/g, ' ') : line);
    if (line.startsWith('|')) flush();
  }
  flush();
  return statements;
}

/** Cuts a text into sentences at `.`, `!` or `?` followed by a space and a capital, a backtick, a quote or `(`. */
function splitSentences(text: string): string[] {
  return text.split(/(?<=[.!?])\s+(?=[A-Z`"*(])/);
}
