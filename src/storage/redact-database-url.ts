/** Database URLs as they may appear in logs and error messages: never with their password. */

/** `url` with any password replaced by `***` (a SQLite path is returned as is). */
export function redactDatabaseUrl(url: string): string {
  if (!/^postgres(ql)?:\/\//i.test(url)) return url;
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    for (const key of [...parsed.searchParams.keys()]) {
      if (/pass|secret|token/i.test(key)) parsed.searchParams.set(key, '***');
    }
    return parsed.toString();
  } catch {
    return 'postgres://[unparseable url]';
  }
}
