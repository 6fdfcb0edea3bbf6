# Regenerates proto-schema.generated.ts from the k8s.io/api and apimachinery generated.proto
# files of the versions tools/kube/go pins (the real tier's kube-apiserver is built from them):
#   python3 proto-schema.generate.py > proto-schema.generated.ts && pnpm exec biome format --write proto-schema.generated.ts
import re, sys, json, os, subprocess
HERE=os.path.dirname(os.path.abspath(__file__))
KUBE_TOOLS=os.path.join(HERE, '../../../../tools/kube')
KUBE_MODULE=os.path.join(KUBE_TOOLS, 'go')
# The Go command as tools/kube/build.sh finds it: $GO, else go on PATH.
GO=subprocess.run(['bash', os.path.join(KUBE_TOOLS, 'find-go.sh')], check=True,
                  capture_output=True, text=True).stdout.strip()

def module_dirs(*paths):
    """The module cache folder and version of each module as the pinned build list resolves it
    (replace directives included); `go mod download` fetches it through GOPROXY when absent."""
    env=dict(os.environ, GOTOOLCHAIN='local', GOFLAGS='-mod=readonly')
    out=subprocess.run([GO,'mod','download','-json',*paths], cwd=KUBE_MODULE, env=env,
                       check=True, capture_output=True, text=True).stdout
    found={}
    for text in re.findall(r'\{.*?\n\}', out, re.S):
        info=json.loads(text)
        if 'Error' in info: sys.exit(f"go mod download {info['Path']}: {info['Error']}")
        found[info['Path']]=(info['Dir'], info['Version'])
    return found

mods=module_dirs('k8s.io/api','k8s.io/apimachinery')
API,API_VERSION=mods['k8s.io/api']
MACHINERY,MACHINERY_VERSION=mods['k8s.io/apimachinery']
# The header names one version: both modules are released together at the same tag.
if API_VERSION!=MACHINERY_VERSION: sys.exit(f'k8s.io/api {API_VERSION} and apimachinery {MACHINERY_VERSION} differ')
files = {
 'k8s.io.api.core.v1': f'{API}/core/v1/generated.proto',
 'k8s.io.api.apps.v1': f'{API}/apps/v1/generated.proto',
 'k8s.io.api.autoscaling.v1': f'{API}/autoscaling/v1/generated.proto',
 'k8s.io.api.coordination.v1': f'{API}/coordination/v1/generated.proto',
 'k8s.io.apimachinery.pkg.apis.meta.v1': f'{MACHINERY}/pkg/apis/meta/v1/generated.proto',
 'k8s.io.apimachinery.pkg.api.resource': f'{MACHINERY}/pkg/api/resource/generated.proto',
 'k8s.io.apimachinery.pkg.util.intstr': f'{MACHINERY}/pkg/util/intstr/generated.proto',
 'k8s.io.apimachinery.pkg.runtime': f'{MACHINERY}/pkg/runtime/generated.proto',
}
SCALARS={'string','int32','int64','bool','bytes','double','float','uint32','uint64'}
messages={}
for pkg,path in files.items():
    text=open(path).read()
    text=re.sub(r'//[^\n]*','',text)
    for m in re.finditer(r'message\s+(\w+)\s*\{(.*?)\n\}', text, re.S):
        name=f'{pkg}.{m.group(1)}'
        fields={}
        for f in re.finditer(r'(optional|repeated)?\s*(map<\s*string\s*,\s*([\w.]+)\s*>|[\w.]+)\s+(\w+)\s*=\s*(\d+)\s*;', m.group(2)):
            label,typ,mapval,fname,num=f.groups()
            if mapval:
                kind='map'; typ=mapval
            else:
                kind='repeated' if label=='repeated' else 'single'
            typ=typ.lstrip('.')
            if typ not in SCALARS and '.' not in typ:
                typ=f'{pkg}.{typ}'
            elif typ not in SCALARS and not typ.startswith('k8s.io'):
                typ=f'{pkg}.{typ}'
            fields[int(num)]=(fname,typ,kind)
        messages[name]=fields
# Go struct fields: a scalar zero value is kept in JSON only for pointers or fields without omitempty.
gotypes = {
 'k8s.io.api.core.v1': f'{API}/core/v1/types.go',
 'k8s.io.api.apps.v1': f'{API}/apps/v1/types.go',
 'k8s.io.api.autoscaling.v1': f'{API}/autoscaling/v1/types.go',
 'k8s.io.api.coordination.v1': f'{API}/coordination/v1/types.go',
 'k8s.io.apimachinery.pkg.apis.meta.v1': f'{MACHINERY}/pkg/apis/meta/v1/types.go',
}
keepzero=set()
for pkg,path in gotypes.items():
    struct=None
    for line in open(path):
        m=re.match(r'type (\w+) struct', line)
        if m: struct=m.group(1); continue
        m=re.match(r'\s+\w+\s+(\*?)\S+\s+`json:"([^"]*)" protobuf:"\w+,(\d+),', line)
        if m and struct:
            pointer, jsontag, num = m.groups()
            if pointer or 'omitempty' not in jsontag:
                keepzero.add((f'{pkg}.{struct}', int(num)))
roots=['k8s.io.api.core.v1.Namespace','k8s.io.api.core.v1.Node','k8s.io.api.core.v1.Pod','k8s.io.api.core.v1.Event','k8s.io.api.core.v1.Binding','k8s.io.api.apps.v1.Deployment','k8s.io.api.apps.v1.ReplicaSet','k8s.io.api.autoscaling.v1.Scale','k8s.io.api.core.v1.Secret','k8s.io.api.core.v1.ConfigMap','k8s.io.api.coordination.v1.Lease','k8s.io.apimachinery.pkg.apis.meta.v1.DeleteOptions']
SPECIAL={'k8s.io.apimachinery.pkg.apis.meta.v1.Time':'time','k8s.io.apimachinery.pkg.apis.meta.v1.MicroTime':'microtime','k8s.io.apimachinery.pkg.api.resource.Quantity':'quantity','k8s.io.apimachinery.pkg.util.intstr.IntOrString':'intorstring','k8s.io.apimachinery.pkg.runtime.RawExtension':'raw','k8s.io.apimachinery.pkg.apis.meta.v1.FieldsV1':'raw'}
seen=set(); order=[]
def visit(n):
    if n in seen or n in SPECIAL: return
    if n not in messages: print('missing',n,file=sys.stderr); return
    seen.add(n); order.append(n)
    for (_,t,_) in messages[n].values():
        if t not in SCALARS: visit(t)
for r in roots: visit(r)
short={}
for n in order:
    s=n.split('.')[-1]
    short[n]=s if sum(1 for o in order if o.split('.')[-1]==s)==1 else n.split('.')[-2]+s[0].upper()+s[1:]
def tname(t):
    if t in SCALARS: return t
    if t in SPECIAL: return SPECIAL[t]
    return short[t]
out=[]
out.append('/**\n * Protobuf field tables of the Kubernetes kinds kubectl may send as protobuf, generated from\n * k8s.io/api and k8s.io/apimachinery '+API_VERSION+' `generated.proto` (field numbers are stable API).\n * Regenerate with proto-schema.generate.py; do not edit by hand.\n */\n')
# The table's type comes from a module that imports nothing back, so the reader and the tables form no circle.
out.append("import type { ProtoMessage } from './proto-schema-types.js';\n")
out.append('export const PROTO_MESSAGES: Readonly<Record<string, ProtoMessage>> = {')
for n in order:
    entries=[]
    for num in sorted(messages[n]):
        fname,t,kind=messages[n][num]
        flag={'single':'','repeated':',1','map':',2'}[kind]
        if kind=='single' and t in SCALARS and (n,num) in keepzero:
            flag=',0,1'
        entries.append(f"{num}:['{fname}','{tname(t)}'{flag}]")
    out.append(f"  {short[n]}: {{{','.join(entries)}}},")
out.append('};\n')
rootmap={ 'v1/Namespace':'Namespace','v1/Node':'Node','v1/Pod':'Pod','v1/Event':'Event','v1/Binding':'Binding','apps/v1/Deployment':'Deployment','apps/v1/ReplicaSet':'ReplicaSet','autoscaling/v1/Scale':'Scale','v1/Secret':'Secret','v1/ConfigMap':'ConfigMap','coordination.k8s.io/v1/Lease':'Lease','meta.k8s.io/v1/DeleteOptions':'DeleteOptions','v1/DeleteOptions':'DeleteOptions'}
out.append('/** apiVersion/kind → message, for the envelope of a protobuf request body. */')
out.append('export const PROTO_ROOTS: Readonly<Record<string, string>> = '+json.dumps(rootmap).replace('"',"'")+';\n')
print('\n'.join(out))
print(len(order), file=sys.stderr)
