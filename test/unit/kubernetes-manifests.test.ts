import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'fs';
import path from 'path';
import { DEFAULT_SANDBOX_IMAGE } from '../../lib/sandbox/docker-provider';

// deploy/kubernetes/ as the kubernetes backend needs it: the Role grants what
// the backend calls and nothing more, and the server runs the image and the
// backend this version of Glance names.

const dir = path.join(__dirname, '..', '..', 'deploy', 'kubernetes');
const { loadAllYaml } = require('@kubernetes/client-node') as { loadAllYaml(text: string): any[] };
const objects = fs.readdirSync(dir).filter((f) => f.endsWith('.yaml')).flatMap((f) => loadAllYaml(fs.readFileSync(path.join(dir, f), 'utf8')));
const one = (kind: string) => {
  const found = objects.filter((o) => o.kind === kind);
  assert.equal(found.length, 1, `one ${kind} in deploy/kubernetes/`);
  return found[0];
};

test('the Role grants exactly the verbs the backend uses: pods create/get/list/watch/delete, pods/log get, pods/portforward create/get', () => {
  const rules = one('Role').rules.map((r: any) => ({ resources: r.resources, verbs: [...r.verbs].sort() }));
  assert.deepEqual(rules, [
    { resources: ['pods'], verbs: ['create', 'delete', 'get', 'list', 'watch'] },
    { resources: ['pods/log'], verbs: ['get'] },
    { resources: ['pods/portforward'], verbs: ['create', 'get'] },
  ]);
  const binding = one('RoleBinding');
  assert.equal(binding.roleRef.name, one('Role').metadata.name);
  assert.equal(binding.subjects[0].name, one('ServiceAccount').metadata.name);
});

test("the server's Deployment runs this version's image as its ServiceAccount, with the kubernetes backend, in the backend's namespace", () => {
  const pod = one('Deployment').spec.template.spec;
  assert.equal(pod.serviceAccountName, one('ServiceAccount').metadata.name);
  const [server] = pod.containers;
  assert.equal(server.image, DEFAULT_SANDBOX_IMAGE);
  assert.equal(server.env.find((e: any) => e.name === 'GLANCE_SANDBOX_IMAGE').value, DEFAULT_SANDBOX_IMAGE);
  assert.deepEqual(server.command.slice(-2), ['--backend', 'kubernetes']);
  assert.equal(server.env.find((e: any) => e.name === 'GLANCE_KUBERNETES_NAMESPACE').valueFrom.fieldRef.fieldPath, 'metadata.namespace');
  for (const object of objects.filter((o) => o.kind !== 'Namespace')) assert.equal(object.metadata.namespace, one('Namespace').metadata.name, `${object.kind} ${object.metadata.name}`);
  assert.ok(Number(one('ResourceQuota').spec.hard.pods) >= 1);
});
