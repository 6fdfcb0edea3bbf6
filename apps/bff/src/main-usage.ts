import { MIN_CONSOLE_TOKEN_LENGTH } from './identity/console-token.js';

/** `npm start -- --help`: every flag of the console, with the variable that sets it too. */
export const USAGE = `Usage: npm start -- [flags]        (the mGPU console; no cluster configured: the embedded one)

Cluster
  --kubeconfig FILE          a kubeconfig (else KUBECONFIG, ~/.kube/config, the in-cluster account, or embedded)
  --context NAME             the kubeconfig context
  --embedded                 the embedded mGPU cluster even when a kubeconfig is found
  --topology FILE            the embedded cluster's nodes and cards (JSON)
  --state-file FILE          where the embedded cluster keeps its objects across restarts
  --gpu-metrics-port P       its GPU exporter (simulated dcgm text) on 127.0.0.1:P (MGPU_GPU_METRICS_PORT)
  --card-policy binpack|spread   the card policy the preview assumes   (MGPU_CARD_POLICY)
  --model-label KEY          the node label naming the GPU model       (MGPU_MODEL_LABEL)
  --reserved-namespace NS    never written into (repeatable)           (MGPU_RESERVED_NAMESPACES)

Serving
  --port P                   default 8080                               (PORT)
  --host ADDR                default 127.0.0.1                          (HOST)
  --allowed-origin URL       another name the console answers as (repeatable) (MGPU_ALLOWED_ORIGINS)
  --trust-proxy HOPS|CIDRS   proxies whose X-Forwarded-* are believed; default none (MGPU_TRUST_PROXY)
  --metrics-port P           Prometheus /metrics on its own port        (MGPU_METRICS_PORT)
  --metrics-host ADDR        where /metrics listens, default 127.0.0.1  (MGPU_METRICS_HOST)
  --history-minutes M        how far back pool history reaches, default 60 (MGPU_HISTORY_MINUTES)

Sign-in
  --token T                  one shared token, at least ${MIN_CONSOLE_TOKEN_LENGTH} characters   (MGPU_CONSOLE_TOKEN)
  --auth kubernetes|oidc     each operator's own Kubernetes identity    (MGPU_AUTH)
  --oidc-issuer URL  --oidc-client-id ID  --oidc-client-secret S  --oidc-ca-file FILE  --oidc-scopes S
  --session-idle-minutes M   default 30                                 (MGPU_SESSION_IDLE_MINUTES)
  --session-max-hours H      default 12                                 (MGPU_SESSION_MAX_HOURS)
  --access-review-ttl S      seconds an operator's RBAC answers are kept, default 5 (MGPU_ACCESS_REVIEW_TTL)
  --sign-in-attempts N       wrong credentials per address per minute, default 10 (MGPU_SIGN_IN_ATTEMPTS)

Replicas
  --session-key-file FILE    consoles sharing it accept each other's sessions, which outlive a
                             restart; one key per line (openssl rand -base64 48), the first seals (MGPU_SESSION_KEY_FILE)
  --console-namespace NS     where the leader Lease and the sign-outs live; default the
                             kubeconfig context's (a pod's own), else default (MGPU_CONSOLE_NAMESPACE)
  --instance-name NAME       prefix of those objects' names, default mgpu-console (MGPU_INSTANCE_NAME)

GPU usage
  --prometheus-url URL       read usage through Prometheus's HTTP API   (MGPU_PROMETHEUS_URL)
  --prometheus-token-file F  a bearer token for it, re-read per query   (MGPU_PROMETHEUS_TOKEN_FILE)
  --prometheus-ca-file FILE  the CA of an https Prometheus              (MGPU_PROMETHEUS_CA_FILE)
  --usage-queries FILE       PromQL overrides, YAML or JSON (README)    (MGPU_USAGE_QUERIES)
  --idle-threshold P         under P % of its allocation is quiet, default 5 (MGPU_IDLE_THRESHOLD)
  --idle-after D             quiet this long while holding cards is idle: 30s, 2m, default 30m (MGPU_IDLE_AFTER)
  --usage-max-age D          one Prometheus read answers every caller this long, default 10s; 0: each call reads (MGPU_USAGE_MAX_AGE)

  -h, --help                 this text
`;
