// The Kubernetes manifests (deploy/kubernetes/), each overlay as kustomize would put it together,
// validated against the Kubernetes API's own schemas (the npm packages kubernetes-models and
// @kubernetes-models/prometheus-operator carry them, so no cluster and no network is needed), then
// held to what the image needs: non-root, a read-only root with /tmp writable, probes on the admin
// port, a grace period longer than the send drain, resources, and the same key for every replica.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import { Deployment } from 'kubernetes-models/apps/v1/Deployment';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { NetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import { PodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import { ConfigMap } from 'kubernetes-models/v1/ConfigMap';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Service } from 'kubernetes-models/v1/Service';
import { ServiceAccount } from 'kubernetes-models/v1/ServiceAccount';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';

const ROOT = fileURLToPath(new URL('../../deploy/kubernetes/', import.meta.url));

interface Manifest {
  apiVersion: string;
  kind: string;
  metadata: { name: string };
  spec?: Record<string, unknown>;
  [field: string]: unknown;
}

/** The schema of each kind the manifests use; a kind not here fails the test (add its model). */
const MODELS: Record<string, new (data: never) => { validate(): void }> = {
  'apps/v1/Deployment': Deployment,
  'apps/v1/StatefulSet': StatefulSet,
  'networking.k8s.io/v1/NetworkPolicy': NetworkPolicy,
  'policy/v1/PodDisruptionBudget': PodDisruptionBudget,
  'v1/ConfigMap': ConfigMap,
  'v1/PersistentVolumeClaim': PersistentVolumeClaim,
  'v1/Service': Service,
  'v1/ServiceAccount': ServiceAccount,
  'monitoring.coreos.com/v1/ServiceMonitor': ServiceMonitor,
};

/**
 * The resources of a kustomization, as `kustomize build` lists them. Only `resources` (files and
 * folders of kustomizations) is used here; any other field fails, so this never passes a kustomization
 * whose meaning it does not know.
 */
function build(dir: string): Manifest[] {
  const kustomization = parseAllDocuments(
    readFileSync(join(dir, 'kustomization.yaml'), 'utf8'),
  )[0]?.toJS() as {
    resources: string[];
  };
  const known = ['apiVersion', 'kind', 'resources'];
  expect(Object.keys(kustomization).filter((key) => !known.includes(key))).toEqual([]);
  const out: Manifest[] = [];
  for (const entry of kustomization.resources) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...build(path));
    else out.push(...parseAllDocuments(readFileSync(path, 'utf8')).map((doc) => doc.toJS() as Manifest));
  }
  const ids = out.map((m) => `${m.kind}/${m.metadata.name}`);
  expect(ids.filter((id, i) => ids.indexOf(id) !== i)).toEqual([]);
  return out;
}

const overlays = readdirSync(ROOT).filter((name) => {
  try {
    return statSync(join(ROOT, name, 'kustomization.yaml')).isFile() && name !== 'base';
  } catch {
    return false;
  }
});

type Container = {
  ports: { name: string; containerPort: number }[];
  env: { name: string; value?: string }[];
  resources: { requests: Record<string, string>; limits: Record<string, string> };
  securityContext: Record<string, unknown>;
  volumeMounts: { name: string; mountPath: string }[];
  startupProbe: { httpGet: { port: string; path: string } };
  livenessProbe: { httpGet: { port: string; path: string } };
  readinessProbe: { httpGet: { port: string; path: string } };
};
type PodSpec = {
  securityContext: Record<string, unknown>;
  terminationGracePeriodSeconds: number;
  containers: Container[];
  volumes: { name: string; emptyDir?: unknown; persistentVolumeClaim?: { claimName: string } }[];
};

describe('the Kubernetes manifests', () => {
  it('has the two overlays: PostgreSQL replicas and a single SQLite replica', () => {
    expect(overlays.sort()).toEqual(['postgres', 'sqlite']);
  });

  for (const overlay of overlays) {
    describe(overlay, () => {
      const manifests = build(join(ROOT, overlay));

      it('is valid against the Kubernetes schemas, kind by kind', () => {
        for (const manifest of manifests) {
          const model = MODELS[`${manifest.apiVersion}/${manifest.kind}`];
          expect(model, `${manifest.apiVersion} ${manifest.kind}`).toBeDefined();
          expect(() => new (model as NonNullable<typeof model>)(manifest as never).validate()).not.toThrow();
        }
        expect(manifests.map((m) => m.kind).sort()).toEqual(
          [
            'ConfigMap',
            'NetworkPolicy',
            'PersistentVolumeClaim',
            'PodDisruptionBudget',
            'Service',
            'ServiceAccount',
            'ServiceMonitor',
            overlay === 'postgres' ? 'Deployment' : 'StatefulSet',
          ].sort(),
        );
      });

      const workload = manifests.find((m) => m.kind === 'Deployment' || m.kind === 'StatefulSet') as Manifest;
      const spec = workload.spec as { replicas: number; template: { spec: PodSpec } };
      const pod = spec.template.spec;
      const [container] = pod.containers as [Container];

      it('runs as uid 1000 on a read-only root, with /tmp an emptyDir, and nothing it can escalate', () => {
        expect(pod.securityContext).toMatchObject({ runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000 });
        expect(container.securityContext).toMatchObject({
          readOnlyRootFilesystem: true,
          allowPrivilegeEscalation: false,
          capabilities: { drop: ['ALL'] },
        });
        const tmp = container.volumeMounts.find((mount) => mount.mountPath === '/tmp');
        expect(pod.volumes.find((volume) => volume.name === tmp?.name)?.emptyDir).toBeDefined();
      });

      it('probes the admin port, which listens on every interface of the pod', () => {
        const admin = container.ports.find((port) => port.name === 'admin')?.containerPort;
        const env = Object.fromEntries(container.env.map((e) => [e.name, e.value]));
        expect(env.ADMIN_HOST).toBe('0.0.0.0');
        expect(String(admin)).toBe(env.ADMIN_PORT);
        expect(container.startupProbe.httpGet).toEqual({ path: '/livez', port: 'admin' });
        expect(container.livenessProbe.httpGet).toEqual({ path: '/livez', port: 'admin' });
        expect(container.readinessProbe.httpGet).toEqual({ path: '/readyz', port: 'admin' });
        const monitor = manifests.find((m) => m.kind === 'ServiceMonitor') as Manifest;
        expect(monitor.spec?.endpoints).toEqual([
          expect.objectContaining({ port: 'admin', path: '/metrics' }),
        ]);
      });

      it('gives a stopping pod longer than the 15 s drain of a send, and sizes it from the measured figures', () => {
        expect(pod.terminationGracePeriodSeconds).toBeGreaterThanOrEqual(30);
        expect(container.resources.requests).toEqual({ cpu: '100m', memory: '160Mi' });
        expect(container.resources.limits).toEqual({ memory: '320Mi' });
      });

      it('signs with the key it is given, and keeps the archive on the ReadWriteMany volume', () => {
        const env = Object.fromEntries(container.env.map((e) => [e.name, e.value]));
        expect(env.CNGN_AUDIT_SIGNING_KEY_FILE).toMatch(/^\/run\/secrets\//);
        expect(env.CNGN_AUDIT_ARCHIVE).toBe('file:///app/archive');
        const mount = container.volumeMounts.find((m) => m.mountPath === '/app/archive');
        const claim = pod.volumes.find((v) => v.name === mount?.name)?.persistentVolumeClaim?.claimName;
        const pvc = manifests.find((m) => m.kind === 'PersistentVolumeClaim' && m.metadata.name === claim);
        expect(pvc?.spec?.accessModes).toEqual(['ReadWriteMany']);
      });

      it(overlay === 'sqlite' ? 'runs one replica, never two writers' : 'runs replicas', () => {
        if (overlay === 'sqlite') {
          expect(workload.kind).toBe('StatefulSet');
          expect(spec.replicas).toBe(1);
        } else {
          expect(spec.replicas).toBeGreaterThan(1);
        }
      });
    });
  }
});
