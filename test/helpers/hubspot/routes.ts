/**
 * The stand-in's routes: which handler answers a method and path, the scopes it needs (shared/docs/hubspot-api.md
 * §4), and whether it is a search (its own limit, §2). Legacy `/crm/v3|v4` and date-versioned
 * `/crm/objects|properties|associations/YYYY-MM` paths name the same endpoints.
 */
import { associateDefault, createAssociations, readAssociations } from './associations.js';
import type { Answer, HandlerContext } from './batch-input.js';
import { listObjects } from './list.js';
import {
  batchCreate,
  batchRead,
  batchUpdate,
  batchUpsert,
  createObject,
  getObject,
  updateObject,
} from './objects.js';
import { getOwner } from './owners.js';
import type { CrmObjectType } from './properties.js';
import { createProperty, getProperty, listProperties } from './property-routes.js';
import { searchObjects } from './search.js';
import { taskRoute } from './tasks.js';

/** What answers one request. */
export interface Route {
  /** Groups of scopes, each group satisfied by any one of its scopes. */
  scopes: string[][];
  search: boolean;
  handle: (ctx: HandlerContext, body: unknown) => Answer;
}

function objectType(segment: string): CrmObjectType | undefined {
  if (segment === 'contacts' || segment === '0-1') return 'contacts';
  if (segment === 'companies' || segment === '0-2') return 'companies';
  return undefined;
}

const OBJECTS = /^\/crm\/(?:v3\/objects|objects\/\d{4}-\d{2})\/([^/]+)(?:\/(.+))?$/;
const PROPERTIES = /^\/crm\/(?:v3\/properties|properties\/\d{4}-\d{2})\/([^/]+)(?:\/([^/]+))?$/;
const ASSOCIATIONS = /^\/crm\/(?:v4\/associations|associations\/\d{4}-\d{2})\/([^/]+)\/([^/]+)\/batch\/(.+)$/;

/** The route of a request, or undefined for a path the stand-in does not serve. */
export function route(method: string, path: string, query: URLSearchParams): Route | undefined {
  const owner = /^\/crm\/v3\/owners\/([^/]+)$/.exec(path);
  if (owner && method === 'GET') {
    const id = decodeURIComponent(owner[1]!);
    return { scopes: [['crm.objects.owners.read']], search: false, handle: (c) => getOwner(c, id, query) };
  }
  const objects = OBJECTS.exec(path);
  if (objects) {
    if (objects[1] === 'tasks' || objects[1] === '0-27') return taskRoute(method, objects[2], query);
    const type = objectType(objects[1]!);
    const rest = objects[2];
    if (!type) return undefined;
    const read = [[`crm.objects.${type}.read`]];
    const write = [[`crm.objects.${type}.write`]];
    if (method === 'POST' && rest === undefined)
      return { scopes: write, search: false, handle: (c, b) => createObject(c, type, b) };
    if (method === 'GET' && rest === undefined)
      return { scopes: read, search: false, handle: (c) => listObjects(c, type, query) };
    if (method === 'POST' && rest === 'batch/upsert')
      return { scopes: write, search: false, handle: (c, b) => batchUpsert(c, type, b) };
    if (method === 'POST' && rest === 'batch/create')
      return { scopes: write, search: false, handle: (c, b) => batchCreate(c, type, b) };
    if (method === 'POST' && rest === 'batch/update')
      return { scopes: write, search: false, handle: (c, b) => batchUpdate(c, type, b) };
    if (method === 'POST' && rest === 'batch/read')
      return { scopes: read, search: false, handle: (c, b) => batchRead(c, type, b) };
    if (method === 'POST' && rest === 'search')
      return { scopes: read, search: true, handle: (c, b) => searchObjects(c, type, b) };
    if (method === 'PATCH' && rest !== undefined && !rest.includes('/')) {
      return {
        scopes: write,
        search: false,
        handle: (c, b) => updateObject(c, type, decodeURIComponent(rest), query, b),
      };
    }
    if (method === 'GET' && rest !== undefined && !rest.includes('/')) {
      return {
        scopes: read,
        search: false,
        handle: (c) => getObject(c, type, decodeURIComponent(rest), query),
      };
    }
    return undefined;
  }
  const properties = PROPERTIES.exec(path);
  if (properties) {
    const type = objectType(properties[1]!);
    const name = properties[2];
    if (!type) return undefined;
    if (method === 'GET' && name === undefined) {
      return {
        scopes: [[`crm.schemas.${type}.read`]],
        search: false,
        handle: (c) => listProperties(c, type),
      };
    }
    if (method === 'GET') {
      return {
        scopes: [[`crm.schemas.${type}.read`]],
        search: false,
        handle: (c) => getProperty(c, type, name!),
      };
    }
    if (method === 'POST' && name === undefined) {
      return {
        scopes: [[`crm.schemas.${type}.write`]],
        search: false,
        handle: (c, b) => createProperty(c, type, b),
      };
    }
    return undefined;
  }
  const associations = ASSOCIATIONS.exec(path);
  if (associations && method === 'POST') {
    if (objectType(associations[1]!) !== 'contacts' || objectType(associations[2]!) !== 'companies')
      return undefined;
    const scopes = [['crm.objects.contacts.write'], ['crm.objects.companies.write']];
    if (associations[3] === 'create') return { scopes, search: false, handle: createAssociations };
    if (associations[3] === 'associate/default') return { scopes, search: false, handle: associateDefault };
    if (associations[3] === 'read') {
      return { scopes: [['crm.objects.contacts.read']], search: false, handle: readAssociations };
    }
  }
  return undefined;
}
