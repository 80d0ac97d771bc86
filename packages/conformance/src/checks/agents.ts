import { defineCheck, fail, pass, skip, type ConformanceCheck } from '../check.js';

/** Level 1, the agents' version (spec §3.1, revision 1.5): a client asks again cheaply, by `If-None-Match`. */
export const agentsChecks: ConformanceCheck[] = [
  defineCheck({
    id: 'agents.etag',
    level: 1,
    title:
      'GET /api/agents with If-None-Match naming its ETag (or *) is a 304 with that ETag and no body; another is a 200.',
    spec: {
      section: 'agents',
      must: 'A server that sends an ETag with the agents MUST answer a GET whose If-None-Match names it with 304 Not Modified, the ETag and no body.',
    },
    async run(context) {
      const client = context.client;
      const url = client.options.agentsEndpoint;
      if (url === undefined) return skip('no --agents-endpoint');
      const first = await client.send(url, { method: 'GET' });
      const etag = first.headers.get('etag');
      if (first.status !== 200) return fail(`GET ${url} answered ${first.status}`);
      if (etag === null) return skip('no ETag on the agents (a server of revision 1.4 or older)');
      const problems: string[] = [];
      for (const ifNoneMatch of [etag, `W/${etag.replace(/^W\//, '')}`, `"kit-other", ${etag}`, '*']) {
        const again = await client.send(url, { method: 'GET', headers: { 'If-None-Match': ifNoneMatch } });
        if (again.status !== 304) problems.push(`If-None-Match: ${ifNoneMatch} got ${again.status}, not 304`);
        else if (again.headers.get('etag') !== etag)
          problems.push(`If-None-Match: ${ifNoneMatch} got a 304 with ETag ${again.headers.get('etag')}, not ${etag}`);
        else if (again.body !== '' && again.body !== null && again.body !== undefined)
          problems.push(`If-None-Match: ${ifNoneMatch} got a 304 with a body`);
      }
      const other = await client.send(url, { method: 'GET', headers: { 'If-None-Match': '"kit-not-the-version"' } });
      if (other.status !== 200) problems.push(`an If-None-Match naming another version got ${other.status}, not 200`);
      else if (JSON.stringify(other.body) !== JSON.stringify(first.body))
        problems.push('an If-None-Match naming another version got another body than a plain GET');
      if (problems.length > 0) return fail(problems.join('; '));
      return pass(`ETag ${etag}: 304 for it (strong, weak, in a list, *), 200 with the same body for another`);
    },
  }),
];
