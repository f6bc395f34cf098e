/**
 * The stand-in's record owners (shared/docs/alerts-and-plays-api.md §5.1, from Salesforce's object
 * reference): Users (`005…`) and queues (`00G…`, a Group), and the `OwnerId` field of Contact (a User) and
 * Lead (a User or a queue: polymorphic), whose `Owner` relationship a query follows one level
 * (`SELECT Owner.Email, Owner.IsActive FROM Contact WHERE Id = '003…'`). Through a Contact's `Owner` the
 * User's fields are read; through a Lead's, the Name object's (a queue's `Email` is the queue's address, its
 * `IsActive` false, its `Type` `Queue`).
 */
import { idMaker } from './ids.js';
import { field, type ObjectSchema } from './schema.js';
import type { OrgStore, Value } from './store.js';

/** A User or a queue as the stand-in holds it. */
export interface OrgOwner {
  readonly Id: string;
  /** The object the Id belongs to. */
  readonly type: 'User' | 'Group';
  readonly values: Record<string, Value>;
}

/** Fields a query reads through a User relationship (the User object's, a subset). */
export const USER_FIELDS = ['Id', 'Username', 'Email', 'FirstName', 'LastName', 'Name', 'IsActive', 'Alias'];
/** Fields a query reads through a polymorphic owner (the Name object's, a subset). */
export const NAME_FIELDS = [...USER_FIELDS, 'Type'];

const held = new WeakMap<OrgStore, { user: () => string; queue: () => string; owners: OrgOwner[] }>();

function ownersIn(store: OrgStore) {
  let entry = held.get(store);
  if (entry === undefined) {
    entry = { user: idMaker('005'), queue: idMaker('00G'), owners: [] };
    held.set(store, entry);
  }
  return entry;
}

/** Gives Contact and Lead their standard `OwnerId` (once; kept when a test defined it with its relationship). */
function ownerFields(store: OrgStore): void {
  const define = (schema: ObjectSchema, referenceTo: string[]) => {
    if (schema.get('OwnerId')?.relationshipName === 'Owner') return;
    schema.set(
      'OwnerId',
      field({
        name: 'OwnerId',
        label: 'Owner ID',
        type: 'reference',
        length: 18,
        relationshipName: 'Owner',
        referenceTo,
      }),
    );
  };
  define(store.schema.Contact, ['User']);
  define(store.schema.Lead, ['Group', 'User']);
}

/** Adds a User (active unless said); returns its Id. */
export function addOrgUser(
  store: OrgStore,
  user: { Email: string; FirstName?: string; LastName?: string; IsActive?: boolean },
): string {
  ownerFields(store);
  const entry = ownersIn(store);
  const Id = entry.user();
  const first = user.FirstName ?? null;
  const last = user.LastName ?? user.Email.split('@')[0]!;
  entry.owners.push({
    Id,
    type: 'User',
    values: {
      Id,
      Username: user.Email,
      Email: user.Email,
      FirstName: first,
      LastName: last,
      Name: [first, last].filter((part) => part !== null).join(' '),
      IsActive: user.IsActive ?? true,
      Alias: last.slice(0, 8),
      Type: 'User',
    },
  });
  return Id;
}

/** Adds a queue (a Group of type Queue) that can own Leads; returns its Id. */
export function addOrgQueue(store: OrgStore, queue: { Name: string; Email?: string }): string {
  ownerFields(store);
  const entry = ownersIn(store);
  const Id = entry.queue();
  entry.owners.push({
    Id,
    type: 'Group',
    values: { Id, Name: queue.Name, Email: queue.Email ?? null, IsActive: false, Type: 'Queue' },
  });
  return Id;
}

/** The User or queue with `id` (15 or 18 characters), if any. */
export function orgOwner(store: OrgStore, id: string): OrgOwner | undefined {
  return ownersIn(store).owners.find(
    (owner) => owner.Id === id || (id.length === 15 && owner.Id.startsWith(id)),
  );
}
