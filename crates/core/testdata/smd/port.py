#!/usr/bin/env python3
"""Writes structured-merge-diff's merge/*_test.go TestCase tables as the JSON data here.

Usage: python3 port.py SMD_GIT_DIR  (PyYAML needed; writes FILES next to this script).
"""
import json, os, re, subprocess, sys, yaml

REPO = sys.argv[1] if len(sys.argv) > 1 else '/work/.mirror/kubernetes-sigs+structured-merge-diff/repo'
FILES = ['set_test.go', 'key_test.go', 'multiple_appliers_test.go', 'leaf_test.go', 'nested_test.go',
         'default_keys_test.go', 'deduced_test.go', 'duplicates_test.go', 'preserve_unknown_test.go']
TAG = 'v4.4.2'

def show(path):
    return subprocess.run(['git', '-C', REPO, 'show', f'{TAG}:{path}'], capture_output=True, text=True, check=True).stdout

# ---- a tokenizer and parser for the subset of Go expressions the tests use ----
TOK = re.compile(r'''\s+|//[^\n]*|/\*.*?\*/|(`[^`]*`)|("(?:[^"\\]|\\.)*")|([A-Za-z_][\w.]*)|(-?\d+(?:\.\d+)?)|(\[\]|:=|&|[{}()\[\],:*.])''', re.S)

def tokens(src):
    out, i = [], 0
    while i < len(src):
        m = TOK.match(src, i)
        if not m:
            out.append(('?', src[i])); i += 1; continue
        i = m.end()
        raw, s, ident, num, p = m.groups()
        if raw is not None: out.append(('str', raw[1:-1]))
        elif s is not None: out.append(('str', json.loads(s)))
        elif ident is not None: out.append(('id', ident))
        elif num is not None: out.append(('num', float(num) if '.' in num else int(num)))
        elif p is not None: out.append(('p', p))
    return out

class P:
    def __init__(self, toks, i): self.t, self.i = toks, i
    def peek(self, k=0): return self.t[self.i + k] if self.i + k < len(self.t) else ('eof', None)
    def take(self, kind=None, val=None):
        tok = self.peek()
        if (kind and tok[0] != kind) or (val is not None and tok[1] != val):
            raise SyntaxError(f'expected {kind} {val}, got {tok} at {self.i}')
        self.i += 1; return tok
    def typ(self):
        # a type expression before `{`: []X, map[string]X, pkg.X, *X
        parts = []
        while True:
            tok = self.peek()
            if tok == ('p', '[]'): parts.append('[]'); self.i += 1
            elif tok == ('p', '*'): parts.append('*'); self.i += 1
            elif tok[0] == 'id' and tok[1] == 'map' and self.peek(1) == ('p', '['):
                self.i += 2; k = self.typ(); self.take('p', ']'); parts.append(f'map[{k}]')
            elif tok[0] == 'id': parts.append(tok[1]); self.i += 1; break
            else: break
        return ''.join(parts)
    def expr(self):
        tok = self.peek()
        if tok[0] in ('str', 'num'): self.i += 1; v = tok[1]
        elif tok == ('p', '&'): self.i += 1; return self.expr()
        elif tok == ('p', '{'): v = ('comp', None, self.body())
        elif tok[0] == 'id' or tok == ('p', '[]'):
            save = self.i
            ty = self.typ()
            if self.peek() == ('p', '{'): v = ('comp', ty, self.body())
            elif self.peek() == ('p', '('):
                self.i += 1; args = []
                while self.peek() != ('p', ')'):
                    args.append(self.expr())
                    if self.peek() == ('p', ','): self.i += 1
                self.take('p', ')'); v = ('call', ty, args)
            else: v = ('id', ty)
        else: raise SyntaxError(f'unexpected {tok} at {self.i}')
        return v
    def body(self):
        self.take('p', '{'); items = []
        while self.peek() != ('p', '}'):
            a = self.expr()
            if self.peek() == ('p', ':'): self.i += 1; items.append((a, self.expr()))
            else: items.append((None, a))
            if self.peek() == ('p', ','): self.i += 1
        self.take('p', '}'); return items

# ---- schema translation (SMD's YAML schema → our schema.txt format) ----
class Lossy(Exception): pass

def conv_schema(text, root):
    """Our format for an SMD schema, and the root fields it cannot express (field → why)."""
    doc = yaml.safe_load(text)
    types = {t['name']: t for t in doc['types']}
    out, done, n = [], {}, [0]
    lossy, ctx, stack = {}, [None], []
    def bad(why):
        lossy.setdefault(ctx[0], why)
        for nm in stack: done_lossy.setdefault(nm, why)
    done_lossy = {}
    def struct(name, m, atomic):
        if name in done:
            if name in done_lossy: bad(done_lossy[name])
            return name
        done[name] = True
        if m.get('elementType') is not None: bad(f'map {name} has both fields and an elementType')
        entry = [name, atomic, []]; out.append(entry)
        stack.append(name)
        for f in m.get('fields', []):
            if name == root: ctx[0] = f['name']
            ty, attrs = conv(f['type'], True)
            if 'default' in f:
                d = f['default']
                if isinstance(d, float) and d.is_integer(): d = int(d)
                attrs.append('default=' + json.dumps(d, separators=(',', ':')))
            entry[2].append((f['name'], ty, attrs))
        stack.pop()
        return name
    def atom_of(tref):
        if 'namedType' in tref:
            nt = tref['namedType']
            if nt not in types:
                bad(f'type {nt} (deduced/untyped) has no equivalent in our schema format')
                return None, {'scalar': 'x'}
            return nt, types[nt]
        return None, tref
    def conv(tref, field):
        name, a = atom_of(tref)
        rel = tref.get('elementRelationship')
        if 'scalar' in a: return 's', []
        if 'list' in a:
            l = a['list']; r = rel or l.get('elementRelationship', 'atomic')
            if name and name in stack:
                bad(f'recursive list type {name}'); return '[s]', ['list=atomic']
            stack.append(name or '?'); ety, _ = conv(l['elementType'], False); stack.pop()
            if r == 'atomic': attrs = ['list=atomic']
            elif l.get('keys'): attrs = ['list=map', 'keys=' + ','.join(l['keys'])]
            else: attrs = ['list=set']
            if not field and attrs != ['list=atomic']:
                bad('an associative list as a list item or map value (our format puts list types on fields)')
            return f'[{ety}]', attrs
        if 'map' in a:
            m = a['map']; r = rel or m.get('elementRelationship', 'separable')
            if m.get('fields') or (m.get('elementType') is None):
                nm = name
                if nm is None: n[0] += 1; nm = f'inline{n[0]}'
                return struct(nm, m, r == 'atomic'), []
            if name and name in stack:
                bad(f'recursive map type {name}'); return '{s}', []
            stack.append(name or '?'); ety, _ = conv(m['elementType'], False); stack.pop()
            if r == 'atomic':
                if not field: bad('an atomic map as a list item or map value')
                return '{' + ety + '}', ['map=atomic']
            return '{' + ety + '}', []
        bad(f'unsupported type {a}')
        return 's', []
    name, a = atom_of({'namedType': root})
    struct(root, a['map'], a['map'].get('elementRelationship') == 'atomic')
    lines = [f'root T {root}']
    for nm, atomic, fields in out:
        lines.append(f'type {nm}' + (' atomic' if atomic else ''))
        for fn, ty, attrs in fields: lines.append('  ' + ' '.join([fn, ty] + attrs))
    return '\n'.join(lines) + '\n', {k: v for k, v in lossy.items() if k}

# ---- values ----
def fix_yaml(s):
    lines = s.split('\n')
    ind = min((len(l) - len(l.lstrip('\t')) for l in lines if l.strip()), default=0)
    return '\n'.join(l[ind:].replace('\t', '  ') for l in lines)

def load_yaml(s):
    return yaml.safe_load(fix_yaml(s))

def gostr(v):
    if isinstance(v, str): return json.dumps(v, ensure_ascii=False)
    if isinstance(v, bool): return 'true' if v else 'false'
    if v is None: return 'null'
    return str(v)

def path_of(call):
    assert call[0] == 'call' and call[1] == '_P', call
    out = []
    for a in call[2]:
        if isinstance(a, str): out.append(('f', a))
        elif isinstance(a, int): out.append(('i', a))
        elif a[0] == 'call' and a[1] == '_V': out.append(('v', lit(a[2][0])))
        elif a[0] == 'call' and a[1] == '_KBF':
            kv = [lit(x) for x in a[2]]
            out.append(('k', sorted(zip(kv[0::2], kv[1::2]), key=lambda p: p[0])))
        else: raise Lossy(f'path element {a}')
    return out

def lit(a):
    if isinstance(a, (str, int, float)): return a
    if a == ('id', 'true'): return True
    if a == ('id', 'false'): return False
    raise Lossy(f'literal {a}')

def path_string(p):
    s = ''
    for kind, v in p:
        if kind == 'f': s += '.' + v
        elif kind == 'k': s += '[' + ','.join(f'{k}={gostr(x)}' for k, x in v) + ']'
        elif kind == 'v': s += f'[={gostr(v)}]'
        else: s += f'[{v}]'
    return s

def v1key(kind, v):
    if kind == 'f': return 'f:' + v
    if kind == 'k': return 'k:' + json.dumps(dict(v), separators=(',', ':'), ensure_ascii=False)
    if kind == 'v': return 'v:' + json.dumps(v, separators=(',', ':'), ensure_ascii=False)
    raise Lossy('index path element (i:) in managed fields')

def trie(paths):
    root = {}
    members = set()
    for p in paths:
        t = root; keys = []
        for kind, v in p:
            k = v1key(kind, v); keys.append(k)
            t = t.setdefault(k, {})
        members.add(tuple(keys))
    def mark(t, prefix):
        for k, c in t.items():
            kp = prefix + (k,)
            if c and kp in members: c['.'] = {}
            mark(c, kp)
    mark(root, ())
    return root

def conv_case(fields):
    f = {k[1] if isinstance(k, tuple) else k: v for k, v in fields}
    unknown = set(f) - {'Ops', 'Object', 'APIVersion', 'Managed'}
    if unknown: raise Lossy('uses ' + ', '.join(sorted(unknown)))
    ops = []
    for _, op in f.get('Ops', ('comp', None, []))[2]:
        if op[0] != 'comp': raise Lossy(f'op {op}')
        kind = op[1]
        of = {k[1]: v for k, v in op[2]}
        m = {'Apply': 'apply', 'ForceApply': 'force-apply', 'Update': 'update'}.get(kind)
        if not m: raise Lossy(f'operation {kind}')
        o = {'op': m, 'manager': of['Manager'], 'apiVersion': of['APIVersion'], 'object': load_yaml(of['Object'])}
        if 'Conflicts' in of:
            o['conflicts'] = [{'manager': {k[1]: v for k, v in c[2]}['Manager'],
                               'path': path_string(path_of({k[1]: v for k, v in c[2]}['Path']))}
                              for _, c in of['Conflicts'][2]]
        extra = set(of) - {'Manager', 'APIVersion', 'Object', 'Conflicts'}
        if extra: raise Lossy('operation field ' + ', '.join(extra))
        ops.append(o)
    out = {'ops': ops}
    if 'Object' in f and f['Object'].strip():
        out['object'] = load_yaml(f['Object'])
        out['apiVersion'] = f.get('APIVersion')
    if 'Managed' in f:
        mg = {}
        for k, vs in f['Managed'][2]:
            assert vs[0] == 'call' and vs[1] == 'fieldpath.NewVersionedSet', vs
            ns, ver = vs[2][0], vs[2][1]
            assert ns[0] == 'call' and ns[1] == '_NS', ns
            mg[k] = {'apiVersion': ver, 'fieldsV1': trie([path_of(p) for p in ns[2]])}
        out['managed'] = mg
    return out

def main(fname, funcs_parsers):
    src = show(f'merge/{fname}')
    # every parser defined in the merge tests
    allsrc = ''.join(show(f'merge/{n}') for n in subprocess.run(['git', '-C', REPO, 'ls-tree', '--name-only', TAG, 'merge/'], capture_output=True, text=True).stdout.split() if n.endswith('_test.go') for n in [n.split('/')[-1]])
    parsers = {}
    for m in re.finditer(r'var (\w+) = func\(\) (?:\*typed\.)?Parser \{.*?NewParser\(`(.*?)`\)(.*?)\n\}\(\)', allsrc, re.S):
        t = re.search(r'Type\("(\w+)"\)', m.group(3))
        parsers[m.group(1)] = (m.group(2), t.group(1) if t else None)
    toks = tokens(src)
    cases = []
    schemas = {}
    # each test function: its cases map and the parser it runs them with
    for fm in re.finditer(r'func ([Tt]est\w+)\(t \*testing.T[^)]*\) \{', src):
        fn = fm.group(1)
        end = src.find('\nfunc ', fm.end()); end = len(src) if end < 0 else end
        body = src[fm.end():end]
        used = re.findall(r'\.Test(?:WithConverter)?\((\w+)(,\s*\w+)?', body)
        conv = any(c[1] for c in used)
        pname = used[0][0] if used else None
        btoks = tokens(body)
        for i, t in enumerate(btoks):
            if t == ('id', 'map') and btoks[i + 1] == ('p', '[') and btoks[i + 2] == ('id', 'string') and btoks[i + 4] == ('id', 'TestCase'):
                p = P(btoks, i); lit_ = p.expr()
                for k, v in lit_[2]:
                    c = {'source': f'kubernetes-sigs/structured-merge-diff {TAG} merge/{fname} {fn}/{k}'}
                    try:
                        if conv: raise Lossy('runs with a converter between versions (not our single-version model)')
                        if re.search(r'\.Test\(\w+\) == nil', body): raise Lossy('expects the operation to fail (an item without a key field and no default: structured-merge-diff errors, we treat the list as atomic)')
                        if pname not in parsers: raise Lossy(f'parser {pname} is not a typed.NewParser schema (deduced types have no equivalent here)')
                        cc = conv_case(v[2])
                        text, root = parsers[pname]
                        if root is None:
                            vs = {o['apiVersion'] for o in cc['ops']}
                            if len(vs) != 1: raise Lossy('a parser by version with several versions')
                            root = vs.pop()
                        key = pname if parsers[pname][1] else f'{pname}.{root}'
                        sch, lossy = conv_schema(text, root)
                        schemas[key] = sch
                        objs = [o['object'] for o in cc['ops']] + [cc.get('object')]
                        for o in objs:
                            for fld in (o or {}):
                                if fld in lossy: raise Lossy(f'uses field {fld}: {lossy[fld]}')
                        c['schema'] = key
                        c.update(cc)
                    except Lossy as e:
                        c['skip'] = str(e)
                    except Exception as e:
                        c['skip'] = f'not ported: {type(e).__name__}: {e}'
                    cases.append(c)
        for m in re.finditer(r'(\w+) := TestCase\{', body):
            cases.append({'source': f'kubernetes-sigs/structured-merge-diff {TAG} merge/{fname} {fn}', 'skip': 'a single TestCase built in code (not a table entry)'})
    return {'source': f'kubernetes-sigs/structured-merge-diff {TAG} merge/{fname}', 'schemas': schemas, 'cases': cases}

if __name__ == '__main__':
    here = os.path.dirname(os.path.abspath(__file__))
    for f in FILES:
        d = main(f, None)
        open(os.path.join(here, f.replace('.go', '.json')), 'w').write(json.dumps(d, indent=1, ensure_ascii=False) + '\n')
        n = len(d['cases']); s = sum(1 for c in d['cases'] if 'skip' in c)
        print(f, n, 'cases', s, 'skipped')
