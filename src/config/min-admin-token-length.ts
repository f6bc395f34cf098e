/** The admin token's minimum length, and the one check of it that every admin surface shares. */

/** Characters an admin token needs at least: `openssl rand -hex 32` gives 64. */
export const MIN_ADMIN_TOKEN_LENGTH = 32;

/** Throws TypeError when `token` is set but shorter than {@link MIN_ADMIN_TOKEN_LENGTH}. */
export function assertAdminTokenLength(token: string | undefined): void {
  if (token !== undefined && token !== '' && token.length < MIN_ADMIN_TOKEN_LENGTH) {
    throw new TypeError(`the admin token must be at least ${MIN_ADMIN_TOKEN_LENGTH} characters`);
  }
}
