/**
 * The pod template of a container workload: the app container, the forward-auth sidecar, the
 * storage mounts, the GPU limit and the secure defaults. Secure by construction: nothing here can
 * emit `privileged`, a hostPath, host networking, a CPU limit or a service-account token.
 */
import type { IPodTemplateSpec } from 'kubernetes-models/v1/PodTemplateSpec';
import type { IContainer } from 'kubernetes-models/v1/Container';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { Platform, ResolvedService } from '../types.js';
import {
  APP_CONTAINER,
  AUTH_CONTAINER,
  AUTH_PORT_NAME,
  podLabels,
  selectorLabels,
} from './labels.js';
import { authUpstream } from './ports.js';

/** Container-level hardening shared by the app and the sidecar. */
function containerSecurity(): IContainer['securityContext'] {
  return { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } };
}

/**
 * The app container's hardening: the shared one, plus, under a reviewed root exception, exactly
 * the capabilities it lists (everything else stays dropped) and an explicit root user.
 */
function appSecurity(service: ResolvedService): IContainer['securityContext'] {
  const root = service.security.rootException;
  if (root === undefined) return containerSecurity();
  return {
    allowPrivilegeEscalation: false,
    capabilities: {
      drop: ['ALL'],
      ...(root.capabilities.length > 0 ? { add: [...root.capabilities] } : {}),
    },
    runAsNonRoot: false,
    runAsUser: 0,
  };
}

/**
 * The pod's security context: non-root always, with a fixed uid/gid when `security.runAs` names
 * one (for images whose default user is root). Under a reviewed root exception, the pod sets no
 * user and the app container alone runs as root; the proxy sidecar stays non-root.
 */
export function podSecurity(service: ResolvedService): Record<string, unknown> {
  const runAs = service.security.runAs;
  const seccompProfile = { type: 'RuntimeDefault' };
  if (service.security.rootException !== undefined) return { seccompProfile };
  return {
    runAsNonRoot: true,
    seccompProfile,
    ...(runAs === undefined
      ? {}
      : {
          runAsUser: runAs.user,
          ...(runAs.group !== undefined ? { runAsGroup: runAs.group } : {}),
          ...(runAs.fsGroup !== undefined ? { fsGroup: runAs.fsGroup } : {}),
        }),
  };
}

/**
 * The forward-auth sidecar: an OIDC proxy in front of the app port. Its flags are those of
 * oauth2-proxy: every `auth.apiRoutes` entry becomes one `--api-route=` (an unauthenticated
 * request there gets a 401 instead of a redirect: still no access), and every
 * `auth.skipAuthRoutes` entry one `--skip-auth-route=` (served without authentication: probes,
 * health checks). Unauthenticated requests anywhere else are redirected to the issuer.
 */
function authProxy(service: ResolvedService, platform: Platform): IContainer {
  const upstream = authUpstream(service);
  const secret = platform.forwardAuth.clientSecretName;
  const fromSecret = (name: string, key: string) => ({
    name,
    valueFrom: { secretKeyRef: { name: secret, key } },
  });
  return {
    name: AUTH_CONTAINER,
    image: platform.forwardAuth.image,
    args: [
      `--http-address=0.0.0.0:${platform.forwardAuth.port}`,
      '--provider=oidc',
      `--oidc-issuer-url=${platform.forwardAuth.issuerUrl}`,
      ...(upstream !== undefined ? [`--upstream=http://127.0.0.1:${upstream.port}/`] : []),
      '--email-domain=*',
      '--reverse-proxy=true',
      '--skip-provider-button=true',
      ...service.auth.apiRoutes.map((route) => `--api-route=${route}`),
      ...service.auth.skipAuthRoutes.map((route) => `--skip-auth-route=${route}`),
    ],
    env: [
      fromSecret('OAUTH2_PROXY_CLIENT_ID', 'client-id'),
      fromSecret('OAUTH2_PROXY_CLIENT_SECRET', 'client-secret'),
      fromSecret('OAUTH2_PROXY_COOKIE_SECRET', 'cookie-secret'),
    ],
    ports: [{ name: AUTH_PORT_NAME, containerPort: platform.forwardAuth.port, protocol: 'TCP' }],
    securityContext: {
      ...containerSecurity(),
      // The pod may run its app as root under a reviewed exception; the proxy never does.
      ...(service.security.rootException !== undefined
        ? { runAsNonRoot: true, runAsUser: 65532 }
        : {}),
    },
  };
}

/**
 * The pod template. `claimTemplates` names the longhorn volumes a StatefulSet provides through
 * `volumeClaimTemplates` (their pod volume is then implicit and must not be declared).
 */
export function podTemplate(
  service: ResolvedService,
  platform: Platform,
  options: { statefulSet: boolean },
): IPodTemplateSpec {
  const volumes: IVolume[] = [];
  for (const storage of service.storage) {
    if (options.statefulSet && storage.class === 'longhorn') continue;
    volumes.push({
      name: storage.name,
      persistentVolumeClaim: {
        claimName: storage.name,
        ...(storage.readOnly ? { readOnly: true } : {}),
      },
    });
  }
  const app: IContainer = {
    name: APP_CONTAINER,
    image: service.image ?? '',
    ...(service.ports.length > 0
      ? {
          ports: service.ports.map((p) => ({
            name: p.name,
            containerPort: p.port,
            protocol: p.protocol,
          })),
        }
      : {}),
    securityContext: appSecurity(service),
    ...(service.storage.length > 0
      ? {
          volumeMounts: service.storage.map((s) => ({
            name: s.name,
            mountPath: s.mountPath,
            ...(s.subPath !== undefined ? { subPath: s.subPath } : {}),
            ...(s.readOnly ? { readOnly: true } : {}),
          })),
        }
      : {}),
    // The whole GPU mapping (docs/catalog.md): one extended resource in limits, on the app
    // container only. Kubernetes mirrors requests from limits; nothing else is rendered.
    ...(service.hardware.gpu !== undefined
      ? { resources: { limits: { [platform.gpu[service.hardware.gpu]]: 1 } } }
      : {}),
  };
  const containers =
    service.auth.mode === 'forward-auth' ? [app, authProxy(service, platform)] : [app];
  return {
    metadata: { labels: podLabels(service.name) },
    spec: {
      automountServiceAccountToken: false,
      enableServiceLinks: false,
      securityContext: podSecurity(service),
      containers,
      ...(volumes.length > 0 ? { volumes } : {}),
      ...(options.statefulSet
        ? {
            // Required, not preferred: preferred would let every replica land on one node.
            affinity: {
              podAntiAffinity: {
                requiredDuringSchedulingIgnoredDuringExecution: [
                  {
                    labelSelector: { matchLabels: selectorLabels(service.name) },
                    topologyKey: 'kubernetes.io/hostname',
                  },
                ],
              },
            },
          }
        : {}),
    },
  };
}
