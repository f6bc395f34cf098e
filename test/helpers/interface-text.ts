/**
 * The service interface as text, for tests that check the contract against the document itself.
 * docs/service-interface.md is the project's copy; when the team's shared/ folder sits beside the
 * checkout, a test checks that the copy is current.
 */
import { existsSync, readFileSync } from 'node:fs';

const projectCopy = new URL('../../docs/service-interface.md', import.meta.url);
/** The shared original beside the checkout, when present (CI and developers' machines). */
export const SHARED_INTERFACE = new URL('../../../shared/spec/service-interface.md', import.meta.url);

export const interfaceText: string = readFileSync(projectCopy, 'utf8');
export const sharedInterfaceText: string | undefined = existsSync(SHARED_INTERFACE)
  ? readFileSync(SHARED_INTERFACE, 'utf8')
  : undefined;
