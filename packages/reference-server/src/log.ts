/** One structured log record: an `event` name and flat fields (one `hop` record per hop). */
export interface LogEntry {
  event: string;
  [field: string]: unknown;
}

/** Where the server writes its structured logs. */
export type Logger = (entry: LogEntry) => void;

/** A logger writing one JSON object per line, with a timestamp first. */
export function jsonLineLogger(write: (line: string) => void = (line) => console.log(line)): Logger {
  return (entry) => write(JSON.stringify({ time: new Date().toISOString(), ...entry }));
}

/** A logger that drops everything (tests that do not read logs). */
export const silentLogger: Logger = () => undefined;
