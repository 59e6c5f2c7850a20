// Payloads shaped like real deliveries, built deterministically.

/** A push delivery of roughly `targetBytes` (default 7.5 KiB): commits are added until it fits. */
export function pushPayload(targetBytes = 7680): string {
  const user = { login: 'octo', id: 1, node_id: 'MDQ6VXNlcjE=', type: 'User', site_admin: false };
  const repository = {
    id: 1296269,
    node_id: 'MDEwOlJlcG9zaXRvcnkxMjk2MjY5',
    name: 'hello-world',
    full_name: 'octo/hello-world',
    private: false,
    owner: user,
    html_url: 'https://example.test/octo/hello-world',
    description: 'This your first repo! — ünïcödé inside',
    fork: false,
    default_branch: 'main',
  };
  const commits: object[] = [];
  const payload = {
    ref: 'refs/heads/main',
    before: '6113728f27ae82c7b1a177c8d03f9e96e0adf246',
    after: '76ae82c7b1a177c8d03f9e96e0adf2466113728f',
    created: false,
    deleted: false,
    forced: false,
    base_ref: null,
    compare: 'https://example.test/octo/hello-world/compare/6113728f27ae...76ae82c7b1a1',
    commits,
    head_commit: null as object | null,
    pusher: { name: 'octo', email: 'octo@example.test' },
    repository,
    sender: user,
  };
  for (let i = 0; JSON.stringify(payload).length < targetBytes - 400; i++) {
    const commit = {
      id: `${i.toString(16).padStart(8, '0')}27ae82c7b1a177c8d03f9e96e0adf246`,
      tree_id: 'f9e96e0adf2466113728f27ae82c7b1a177c8d03',
      distinct: true,
      message: `Commit number ${i}: fix the flux capacitor and update docs`,
      timestamp: '2026-01-01T00:00:00Z',
      author: { name: 'Octo Cat', email: 'octo@example.test', username: 'octo' },
      committer: { name: 'Octo Cat', email: 'octo@example.test', username: 'octo' },
      added: [],
      removed: [],
      modified: [`src/file-${i}.ts`],
    };
    commits.push(commit);
    payload.head_commit = commit;
  }
  return JSON.stringify(payload);
}

/** A JSON object of exactly `bytes` bytes (ASCII). */
export function payloadOfSize(bytes: number): string {
  const shell = '{"action":"opened","filler":""}';
  return `{"action":"opened","filler":"${'x'.repeat(bytes - shell.length)}"}`;
}

export function issuesOpenedPayload(): Record<string, unknown> {
  return {
    action: 'opened',
    issue: { id: 1, number: 1, title: 'Found a bug', user: { login: 'octo', id: 1 } },
    repository: { id: 1, name: 'hello-world', full_name: 'octo/hello-world', private: false },
    sender: { login: 'octo', id: 1 },
  };
}
