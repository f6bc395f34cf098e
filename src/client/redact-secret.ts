/**
 * Keeping the API key out of messages: whatever text reaches an error or a log line from outside (a
 * service message, a network error) passes through the redactor first.
 */

/** The stand-in written where the secret was. */
export const REDACTED = '[redacted]';

/** A function that replaces every occurrence of `secret` in a text by {@link REDACTED}. */
export function createRedactor(secret: string): (text: string) => string {
  if (secret === '') return (text) => text;
  return (text) => text.split(secret).join(REDACTED);
}
