/**
 * The stand-in's Bulk API 2.0 ingest: create, upload CSV, close, poll through InProgress to JobComplete,
 * results as CSV matched by key (blank cells untouched, #N/A clears, Account.<ExtId> links), failed jobs.
 */
import { parse } from 'csv-parse/sync';
import { describe, expect, it } from 'vitest';
import { api, login, standInsClosedAfterEach } from './http.js';

const start = standInsClosedAfterEach();

describe('Bulk API 2.0 ingest', () => {
  it('upserts a CSV by external id and answers per-row results', async () => {
    const sf = await start({ setUp: true, bulkPollsInProgress: 2 });
    const token = await login(sf);
    sf.seed('Account', { Name: 'Acme', Hooksync_Company_Id__c: 'acme.com' });
    const held = sf.seed('Contact', {
      LastName: 'Old',
      Title: 'Typed by a rep',
      Hooksync_Person_Id__c: 'p1',
      Department: 'Sales',
    });
    const job = await api(sf, token, 'POST', 'jobs/ingest', {
      object: 'Contact',
      operation: 'upsert',
      externalIdFieldName: 'Hooksync_Person_Id__c',
      contentType: 'CSV',
      lineEnding: 'LF',
    });
    expect(job.status).toBe(200);
    expect(job.body).toMatchObject({
      state: 'Open',
      object: 'Contact',
      contentUrl: `services/data/v62.0/jobs/ingest/${job.body.id}/batches`,
    });
    expect(job.body.id).toMatch(/^750/);
    const csv = [
      'Hooksync_Person_Id__c,LastName,Title,Department,Account.Hooksync_Company_Id__c',
      'P1,New,,#N/A,acme.com',
      'p2,"Doe, Jr.",CTO,,acme.com',
      'p3,,CTO,,',
      'p4,Lost,,,nowhere.com',
    ].join('\n');
    expect((await api(sf, token, 'PUT', `jobs/ingest/${job.body.id}/batches`, csv)).status).toBe(201);
    expect((await api(sf, token, 'PUT', `jobs/ingest/${job.body.id}/batches`, csv)).status).toBe(409);
    const closed = await api(sf, token, 'PATCH', `jobs/ingest/${job.body.id}`, { state: 'UploadComplete' });
    expect(closed.body.state).toBe('UploadComplete');
    const states: string[] = [];
    for (;;) {
      const info = await api(sf, token, 'GET', `jobs/ingest/${job.body.id}`);
      states.push(info.body.state);
      if (info.body.state === 'JobComplete') {
        expect(info.body).toMatchObject({ numberRecordsProcessed: 4, numberRecordsFailed: 2 });
        break;
      }
    }
    expect(states).toEqual(['InProgress', 'InProgress', 'JobComplete']);
    const ok = await api(sf, token, 'GET', `jobs/ingest/${job.body.id}/successfulResults`);
    expect(ok.headers.get('content-type')).toMatch(/^text\/csv/);
    const okRows = parse(ok.text, { columns: true }) as Array<Record<string, string>>;
    expect(okRows.map((r) => [r.Hooksync_Person_Id__c, r.sf__Created])).toEqual([
      ['P1', 'false'],
      ['p2', 'true'],
    ]);
    expect(okRows[0]!.sf__Id).toBe(held);
    const failed = parse((await api(sf, token, 'GET', `jobs/ingest/${job.body.id}/failedResults`)).text, {
      columns: true,
    }) as Array<Record<string, string>>;
    expect(failed.map((r) => [r.Hooksync_Person_Id__c, r.sf__Error])).toEqual([
      ['p3', 'REQUIRED_FIELD_MISSING:Required fields are missing: [LastName]:LastName --'],
      [
        'p4',
        'INVALID_FIELD:Foreign key external ID: nowhere.com not found for field Hooksync_Company_Id__c in entity Account:AccountId --',
      ],
    ]);
    const updated = sf.findBy('Contact', 'Hooksync_Person_Id__c', 'p1')[0]!;
    // Blank Title left as typed; #N/A cleared Department.
    expect(updated).toMatchObject({
      LastName: 'New',
      Title: 'Typed by a rep',
      Department: null,
      AccountId: expect.stringMatching(/^001/),
    });
    expect(sf.findBy('Contact', 'Hooksync_Person_Id__c', 'p2')[0]!.LastName).toBe('Doe, Jr.');
  });

  it('fails a job whose CSV names a field the object lacks, or that was closed without data; refuses bad jobs', async () => {
    const sf = await start({ setUp: true, bulkPollsInProgress: 0 });
    const token = await login(sf);
    const create = () =>
      api(sf, token, 'POST', 'jobs/ingest', {
        object: 'Lead',
        operation: 'upsert',
        externalIdFieldName: 'Hooksync_Person_Id__c',
        contentType: 'CSV',
      });
    const job = (await create()).body.id;
    await api(sf, token, 'PUT', `jobs/ingest/${job}/batches`, 'Hooksync_Person_Id__c,Nope__c\np1,x\n');
    await api(sf, token, 'PATCH', `jobs/ingest/${job}`, { state: 'UploadComplete' });
    expect((await api(sf, token, 'GET', `jobs/ingest/${job}`)).body).toMatchObject({
      state: 'Failed',
      errorMessage: 'InvalidBatch : Field name not found : Nope__c',
    });
    const empty = (await create()).body.id;
    expect(
      (await api(sf, token, 'PATCH', `jobs/ingest/${empty}`, { state: 'UploadComplete' })).body.state,
    ).toBe('Failed');
    const bad = await api(sf, token, 'POST', 'jobs/ingest', {
      object: 'Lead',
      operation: 'upsert',
      externalIdFieldName: 'Company',
    });
    expect(bad).toMatchObject({ status: 400, body: [{ errorCode: 'INVALIDJOB' }] });
    expect((await api(sf, token, 'GET', 'jobs/ingest/750Hs9999999999AAA')).status).toBe(404);
    expect(sf.bulkJobs()).toHaveLength(2);
  });

  it('answers results only for a finished job, and counts every Bulk request against the allocation', async () => {
    const sf = await start({ setUp: true });
    const token = await login(sf);
    const job = (
      await api(sf, token, 'POST', 'jobs/ingest', {
        object: 'Account',
        operation: 'upsert',
        externalIdFieldName: 'Hooksync_Company_Id__c',
      })
    ).body.id;
    expect((await api(sf, token, 'GET', `jobs/ingest/${job}/successfulResults`)).status).toBe(409);
    expect(sf.usage().used).toBe(2);
  });
});
