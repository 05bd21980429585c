#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Oracles for decoder/tests/test_xml.sh: what parlot-decode --xml must
write, computed independently of the decoder.

  xml_oracle.py check XML [--select S] [--group-by K] [--group NAME=SPEC]...
                [--raw] --proc KEY=VALUE,... [--proc ...]
      Check a document against make_trace's listings, one --proc per trace
      in command-line order, with keys: trace (the file: thread numbers,
      parents and inherited depths are read from its THREAD_BEGIN chunks),
      listing (make_trace's event list), mode (exact: the listing is every
      event; prefix: each thread decoded a prefix of it), pid, end, rank,
      file, plain=1 (make_trace's ppid, exe and command).  Per thread,
      every number is recomputed from the listing: events, calls,
      max-depth, functions, per-function calls and inclusive events, per
      edge calls and inclusive calls and events.  Groups and the program
      must be the sums of their threads; graph and shape classes are
      recomputed from the threads' edges.  Prints a one-line summary, or
      the first difference (exit 1).
  xml_oracle.py rewrite IN OUT [pid=P] [rank=R] [nasty=1] [names_out=F]
      Copy a trace, changing the PROCESS chunk's pid, adding an mpi_rank,
      or (nasty) giving functions, an object, exe and arguments names that
      are not valid UTF-8 or hold control characters (listed in F); CRCs
      are recomputed.
  xml_oracle.py cuts TRACE LISTING XML...
      Check documents of copies of TRACE cut short (as check with mode
      prefix; a document of a copy cut before the PROCESS chunk only has
      to be well-formed), and that each one's stderr (.err for .xml) is
      one line about the cut trace (.trace).
  xml_oracle.py names XML NAMES FILE
      Check that the nasty names and the file name appear in the document
      as parlot-decode must write them: UTF-8, with every ill-formed
      sequence (maximal subpart) and every character XML cannot carry
      replaced by U+FFFD.
"""
import sys, re, struct, zlib, os
import xml.etree.ElementTree as ET

# ---- text as the XML must carry it ----------------------------------------

def xml_ok(c):
    return (c in (9, 10, 13) or 0x20 <= c <= 0xD7FF
            or 0xE000 <= c <= 0xFFFD or c >= 0x10000)

def sanitize(b):
    """Bytes -> the text parlot-decode writes: ill-formed UTF-8 (maximal
    subparts) and characters XML cannot hold become U+FFFD."""
    s = b.decode('utf-8', 'replace')
    return ''.join(ch if xml_ok(ord(ch)) else '\ufffd' for ch in s)

ESC = re.compile(rb'\\(t|n|\\|x[0-9a-f]{2})')

def unescape(b):
    def one(m):
        g = m.group(1)
        return {b't': b'\t', b'n': b'\n', b'\\': b'\\'}.get(g) or bytes([int(g[1:], 16)])
    return ESC.sub(one, b)

def fnv_ident(name, obj):
    h = 0xcbf29ce484222325
    base = obj.rsplit(b'/', 1)[-1]
    for c in name + b'\0' + base:
        h ^= c
        h = (h * 0x100000001b3) & 0xFFFFFFFFFFFFFFFF
    return h

# ---- traces: a minimal reader of the container, for the rewriter and for
# thread facts (number, parent, inherited depth) ------------------------------

def chunks(data, types=None):
    """(type, header bytes 0-3, thread, payload) of each chunk, or only of
    those of the given types; up to the first bad one."""
    off = 16
    while off + 16 <= len(data):
        typ, flags, res, ln, th, crc = struct.unpack_from('<BBHIII', data, off)
        if off + 16 + ln > len(data):
            return
        if types is None or typ in types:
            payload = data[off + 16: off + 16 + ln]
            if zlib.crc32(payload) != crc:
                return
            yield typ, data[off:off + 4], th, payload
        off += 16 + ln

def trace_threads(path):
    """{number: (parent, inherited)} from THREAD_BEGIN chunks."""
    out = {}
    with open(path, 'rb') as f:
        data = f.read()
    for typ, _, th, p in chunks(data, (4,)):
        if typ == 4:
            num, parent, vgtid, codec, inh = struct.unpack_from('<IIIII', p)
            out[num] = (parent, inh)
    return out

def kv_split(p):
    parts = p.split(b'\0')[:-1]
    return list(zip(parts[0::2], parts[1::2]))

def kv_join(kvs):
    return b''.join(k + b'\0' + v + b'\0' for k, v in kvs)

NASTY = [b'bad\xff\xfe', b'ctl\x01\x02\x1b[0m', b'trunc\xe2\x82', b'sur\xed\xa0\x80x',
         b'big\xf4\x90\x80\x80', b'nonchar\xef\xbf\xbe', b'ok\xc3\xa9t\xc3\xa9\xe2\x82\xac',
         b'cr\rlf\nnl', b'over\xc0\xaf', b'<&"\'>]]>', b'\xf0\x9f\x98\x80four',
         b'lone\x80cont', b'end\xc3']

def rewrite(src, dst, pid=None, rank=None, nasty=False, names_out=None):
    with open(src, 'rb') as f:
        data = f.read()
    out = [data[:16]]
    names = []
    k = 0
    for typ, head, th, p in chunks(data):
        if typ == 1:
            kvs = kv_split(p)
            if pid is not None:
                kvs = [(a, pid.encode() if a == b'pid' else b) for a, b in kvs]
            if rank is not None:
                kvs.append((b'mpi_rank', rank.encode()))
            if nasty:
                kvs = [(a, b'/usr/bin/\xffapp\x02' if a == b'exe' else
                        b'--x\x01\xc3(' if a == b'arg1' else b) for a, b in kvs]
                names.append(('exe', b'/usr/bin/\xffapp\x02'))
                names.append(('command', b'app --x\x01\xc3('))
            p = kv_join(kvs)
        elif typ == 2 and nasty:
            q = b''
            i = 0
            while i < len(p):
                oid = p[i:i + 4]
                e = p.index(b'\0', i + 4)
                nm = p[i + 4:e]
                if nm == b'/opt/my lib/libsp ace.so':
                    nm = b'/opt/\x80\x7f lib/li\xe9.so'
                    names.append(('object', nm))
                q += oid + nm + b'\0'
                i = e + 1
            p = q
        elif typ == 3 and nasty:
            q = b''
            i = 0
            while i < len(p):
                fixed = p[i:i + 16]
                e = p.index(b'\0', i + 16)
                nm = p[i + 16:e]
                if nm.startswith(b'fn_'):
                    nm = NASTY[k % len(NASTY)] + b'_' + nm[3:]
                    k += 1
                    names.append(('name', nm))
                elif nm == b'main':
                    nm = b'_Z3m\xffiv'         # "mangled", with a bad byte
                q += fixed + nm + b'\0'
                i = e + 1
            p = q
        hdr = bytearray(head) + struct.pack('<III', len(p), th, zlib.crc32(p))
        out.append(bytes(hdr) + p)
    with open(dst, 'wb') as f:
        f.write(b''.join(out))
    if names_out:
        with open(names_out, 'w') as f:
            for kind, nm in names:
                f.write('%s %s\n' % (kind, nm.hex()))

# ---- the expected graph of one thread, from its event list -------------------

def thread_oracle(events, inherited):
    """events: [(is_call, depth, key)].  The graph by function key."""
    stack = []        # frames: (key, edge or None, call index, calls before)
    nev = calls = maxd = 0
    edges = {}        # (caller key or None, callee key) -> [calls, incl calls, incl events]
    fcalls = {}       # key -> calls (0 for functions only inherited)
    first_on = {}     # key -> index of the call that put it on the stack
    active = {}       # key -> its activations on the stack
    incl = {}
    inh = inherited

    def close(frame, last):
        """The frame's return is event `last` (inclusive)."""
        key, e, ev0, c0 = frame
        if e is not None:
            e[1] += calls - c0
            e[2] += last - ev0 + 1
        n = active[key] - 1
        active[key] = n
        if n == 0:
            incl[key] = incl.get(key, 0) + last - first_on[key] + 1

    for is_call, depth, key in events:
        if is_call:
            if depth != len(stack) + 1:
                raise ValueError('listing: call at depth %d on a stack of %d' % (depth, len(stack)))
            if inh:
                inh -= 1
                e = None
                fcalls.setdefault(key, 0)
            else:
                ek = (stack[-1][0] if stack else None, key)
                e = edges.get(ek)
                if e is None:
                    e = edges[ek] = [0, 0, 0]
                e[0] += 1
                fcalls[key] = fcalls.get(key, 0) + 1
                calls += 1
            stack.append((key, e, nev, calls - (e is not None)))
            n = active.get(key, 0)
            if n == 0:
                first_on[key] = nev
            active[key] = n + 1
            if depth > maxd:
                maxd = depth
        else:
            if depth != len(stack) or stack[-1][0] != key:
                raise ValueError('listing: return does not match its call')
            close(stack.pop(), nev)
        nev += 1
    while stack:                       # open frames count to the end
        close(stack.pop(), nev - 1)
    return dict(events=nev, calls=calls, max_depth=maxd,
                edges={k: tuple(v) for k, v in edges.items()},
                fcalls=fcalls, incl=incl)

def read_listing(path):
    """{thread: [(is_call, depth, key)]} with keys (object, name) as the XML
    writes them."""
    th = {}
    keys = {}
    with open(path, 'rb') as f:
        for line in f:
            pid, t, kind, depth, tail = line.split(b'\t', 4)
            key = keys.get(tail)
            if key is None:
                obj, name = tail.rstrip(b'\n').split(b'\t')
                key = keys[tail] = (sanitize(unescape(obj)), sanitize(unescape(name)))
            ev = th.get(t)
            if ev is None:
                ev = th[t] = []
            ev.append((kind == b'call', int(depth), key))
    return {int(t): ev for t, ev in th.items()}

# ---- selections ------------------------------------------------------------

def parse_select(spec):
    items = []
    for it in spec.split(','):
        pid, _, thr = it.partition(':')
        pid = None if pid == '*' else pid
        if not thr or thr == '*':
            lo, hi = 1, 1 << 32
        elif '-' in thr:
            lo, hi = map(int, thr.split('-'))
        else:
            lo = hi = int(thr)
        items.append((pid, lo, hi))
    return items

def select_match(items, pid, num):
    return not items or any((p is None or p == pid) and lo <= num <= hi
                            for p, lo, hi in items)

# ---- checking a document -------------------------------------------------------

class Fail(Exception):
    pass

def need(cond, msg):
    if not cond:
        raise Fail(msg)

def N(el, a):
    return int(el.get(a))

def graph_of(el):
    """(fns {fid: (calls, incl)}, edges {(caller, callee): (c, ic, ie)}) of
    a thread/group/program element; checks fn/edge order."""
    fns, edges = {}, {}
    last_fn, last_edge, seen_edge = 0, (-1, -1), False
    for c in el:
        if c.tag == 'fn':
            need(not seen_edge, 'fn after edge')
            fid = int(c.get('ref')[1:])
            need(fid > last_fn, 'fn elements not by increasing ID')
            last_fn = fid
            fns[fid] = (N(c, 'calls'), N(c, 'inclusive-events'))
        elif c.tag == 'edge':
            seen_edge = True
            caller = int(c.get('caller')[1:]) if c.get('caller') else 0
            callee = int(c.get('callee')[1:])
            need((caller, callee) > last_edge, 'edges not sorted by (caller, callee)')
            last_edge = (caller, callee)
            edges[(caller, callee)] = (N(c, 'calls'), N(c, 'inclusive-calls'),
                                       N(c, 'inclusive-events'))
    return fns, edges

def totals(el):
    return tuple(N(el, a) for a in ('events', 'calls', 'max-depth', 'functions'))

def sum_graphs(items):
    """items: [(totals, fns, edges)] -> the same, summed."""
    ev = ca = md = 0
    fns, edges = {}, {}
    for t, f, e in items:
        ev += t[0]; ca += t[1]; md = max(md, t[2])
        for k, v in f.items():
            o = fns.get(k, (0, 0))
            fns[k] = (o[0] + v[0], o[1] + v[1])
        for k, v in e.items():
            o = edges.get(k, (0, 0, 0))
            edges[k] = tuple(a + b for a, b in zip(o, v))
    return (ev, ca, md, len(fns)), fns, edges

def check_doc(xml_path, procs, select, group_by, groups, raw):
    stats = dict(threads_checked=0, ambiguous=0)
    root = ET.parse(xml_path).getroot()
    need(root.tag == 'parlot-callgraph' and root.get('version') == '1', 'root')
    kids = list(root)
    order = ['process', 'function', 'thread', 'group', 'program', 'ranks']
    need([order.index(k.tag) for k in kids] == sorted(order.index(k.tag) for k in kids),
         'elements out of order')
    P = [k for k in kids if k.tag == 'process']
    F = [k for k in kids if k.tag == 'function']
    T = [k for k in kids if k.tag == 'thread']
    G = [k for k in kids if k.tag == 'group']
    prog = [k for k in kids if k.tag == 'program']
    need(len(prog) == 1, 'one program element')
    prog = prog[0]
    need(len(P) == len(procs), '%d processes, expected %d' % (len(P), len(procs)))
    sel = parse_select(select) if select else []

    # the function table
    fkey, byraw, bykey = {}, {}, {}
    for i, f in enumerate(F, 1):
        a = f.attrib
        name, obj, mangled = a['name'], a['object'], a.get('mangled')
        if a['id'] != 'f%d' % i or mangled == name or (raw and mangled):
            raise Fail('f%d: bad id=, or mangled= equal to name= or with '
                       '--no-demangle' % i)
        rawname = mangled if mangled is not None else name
        dup = int(a.get('dup', '1'))
        rk = (obj, rawname)
        if rk in byraw:
            byraw[rk].append(dup)
        else:
            byraw[rk] = [dup]
        # (a sample: FNV in Python is slow, and tables can be large)
        if i % 37 == 1 and '\ufffd' not in rawname + obj:
            need(int(a['ident'], 16) == fnv_ident(rawname.encode(), obj.encode()),
                 'ident of f%d' % i)
        k = fkey[i] = (obj, name)
        if k in bykey:
            bykey[k].append(i)
        else:
            bykey[k] = [i]
    for k, dups in byraw.items():
        if len(dups) > 1 or dups[0] != 1:
            need(sorted(dups) == list(range(1, len(dups) + 1)),
                 'dup numbers of %r: %r' % (k, dups))
    stats['functions'] = len(F)

    # processes and threads
    tinfo = []       # per thread element: (proc index, number, totals, fns, edges)
    ti = 0
    for pi, (pe, spec) in enumerate(zip(P, procs)):
        need(pe.get('id') == 'p%d' % (pi + 1), 'process id')
        pid = spec['pid']
        need(pe.get('pid') == pid, 'pid %s, expected %s' % (pe.get('pid'), pid))
        if 'file' in spec:
            need(pe.get('file') == spec['file'], 'file=')
        if spec.get('end', 'any') != 'any':
            need(pe.get('end') == spec['end'], 'end=%s, expected %s' % (pe.get('end'), spec['end']))
        if 'rank' in spec:
            need(pe.get('rank') == spec['rank'], 'rank=')
        else:
            need(pe.get('rank') is None, 'rank= without a rank')
        if spec.get('plain'):
            need(pe.get('ppid') == '1' and pe.get('exe') == '/usr/bin/app'
                 and pe.get('command') == 'app --tab\there', 'ppid/exe/command')
        facts = trace_threads(spec['trace']) if spec.get('trace') else None
        listing = read_listing(spec['listing']) if spec.get('listing') else {}
        mine = []
        while ti < len(T) and T[ti].get('process') == 'p%d' % (pi + 1):
            mine.append(T[ti])
            ti += 1
        need(N(pe, 'threads-read') == len(mine), 'threads-read=')
        nums = [N(t, 'number') for t in mine]
        need(nums == sorted(set(nums)), 'threads not by increasing number')
        if facts is not None and spec['mode'] == 'exact':
            need(N(pe, 'threads') == len(facts), 'threads=%s, the trace has %d'
                 % (pe.get('threads'), len(facts)))
            want = [n for n in sorted(facts) if select_match(sel, pid, n)]
            need(nums == want, 'threads %r, expected %r' % (nums, want))
        for t in mine:
            num = N(t, 'number')
            need(t.get('id') == 't%d' % (len(tinfo) + 1), 'thread id')
            tot = totals(t)
            fns, edges = graph_of(t)
            need(tot[3] == len(fns), 'functions= is not the number of fn elements')
            tinfo.append((pi, num, tot, fns, edges))
            inherited = 0
            if facts is not None and num in facts:
                parent, inherited = facts[num]
                need(N(t, 'parent') == parent, 'parent=')
            else:
                need(spec['mode'] == 'prefix', 'thread %d is not in the trace' % num)
            if spec['mode'] == 'exact':
                need(t.get('complete') == 'yes', 'thread %d incomplete' % num)
            if num not in listing:
                need(spec['mode'] == 'prefix' or tot[0] == 0 or not spec.get('listing'),
                     'thread %d has events but none listed' % num)
                continue
            evs = listing[num]
            if spec['mode'] == 'exact':
                need(tot[0] == len(evs), 'thread %d: %d events, listing %d' % (num, tot[0], len(evs)))
            else:
                need(tot[0] <= len(evs), 'thread %d: more events than listed' % num)
            o = thread_oracle(evs[:tot[0]], inherited)
            where = 'process %d thread %d: ' % (pi + 1, num)
            need(tot[:3] == (o['events'], o['calls'], o['max_depth']),
                 where + 'events/calls/max-depth %r, expected %r'
                 % (tot[:3], (o['events'], o['calls'], o['max_depth'])))
            # by key (duplicates of a name add up)
            kf, kinc, amb = {}, {}, set()
            for fid, (c, inc) in fns.items():
                k = fkey[fid]
                kf[k] = kf.get(k, 0) + c
                if len(bykey[k]) > 1:
                    amb.add(k)
                else:
                    kinc[k] = inc
            need(set(kf) == set(o['fcalls']), where + 'functions differ: %r'
                 % (set(kf) ^ set(o['fcalls'])))
            for k, c in kf.items():
                need(c == o['fcalls'][k], where + 'calls of %r: %d, expected %d'
                     % (k, c, o['fcalls'][k]))
            for k, inc in kinc.items():
                need(inc == o['incl'][k], where + 'inclusive-events of %r: %d, expected %d'
                     % (k, inc, o['incl'][k]))
            stats['ambiguous'] += len(amb)
            ke = {}
            for (a, b), v in edges.items():
                k = (fkey[a] if a else None, fkey[b])
                ke[k] = tuple(x + y for x, y in zip(ke.get(k, (0, 0, 0)), v))
            oe = o['edges']
            if ke != oe:
                diff = sorted((k, ke.get(k), oe.get(k)) for k in set(ke) | set(oe)
                              if ke.get(k) != oe.get(k))
                raise Fail(where + 'edges differ (edge, got, expected): %r' % diff[:3])
            stats['threads_checked'] += 1
    need(ti == len(T), 'threads out of process order or of no process')

    # groups
    expect = []      # (name or None, kind, [thread indices])
    if group_by == 'process':
        for pi, pe in enumerate(P):
            expect.append(('process ' + pe.get('pid'), 'process',
                           [i for i, t in enumerate(tinfo) if t[0] == pi]))
    elif group_by in ('graph', 'shape'):
        classes = {}
        for i, t in enumerate(tinfo):
            sig = tuple(sorted((k, v[0] if group_by == 'graph' else 0)
                               for k, v in t[4].items()))
            classes.setdefault(sig, []).append(i)
        cl = sorted(classes.values(), key=lambda m: (-len(m), m[0]))
        for n, m in enumerate(cl, 1):
            expect.append(('class %d' % n, group_by, m))
        stats['classes'] = [len(m) for m in cl]
    for name, spec in groups:
        s = parse_select(spec)
        expect.append((name, 'user', [i for i, t in enumerate(tinfo)
                                      if select_match(s, procs[t[0]]['pid'], t[1])]))
    need(len(G) == len(expect), '%d groups, expected %d' % (len(G), len(expect)))
    for ge, (name, kind, members) in zip(G, expect):
        need(ge.get('kind') == kind, 'group kind')
        need(ge.get('name') == name, 'group name %r, expected %r' % (ge.get('name'), name))
        got = [int(m.get('thread')[1:]) - 1 for m in ge if m.tag == 'member']
        need(got == members, 'group %r members %r, expected %r' % (name, got, members))
        need(N(ge, 'threads') == len(members), 'group threads=')
        tot, fns, edges = sum_graphs([tinfo[i][2:] for i in members])
        gfns, gedges = graph_of(ge)
        need(totals(ge) == tot, 'group %r totals %r, expected %r' % (name, totals(ge), tot))
        need(gfns == fns and gedges == edges, 'group %r: fn/edge sums' % name)
    tot, fns, edges = sum_graphs([t[2:] for t in tinfo])
    need(N(prog, 'processes') == len(P) and N(prog, 'threads') == len(tinfo),
         'program processes=/threads=')
    need(totals(prog) == tot, 'program totals %r, expected %r' % (totals(prog), tot))
    gfns, gedges = graph_of(prog)
    need(gfns == fns and gedges == edges, 'program: fn/edge sums')
    stats['events'] = tot[0]
    check_ranks(root, P, tinfo)
    return stats

def low_median(v):
    v = sorted(v)
    return v[(len(v) - 1) // 2]

def check_ranks(root, P, tinfo):
    """<ranks> (docs/xml-format.md): present with two or more program
    processes (those with a rank if any, else all; with threads read);
    per function, min / lower median / max of the calls per process."""
    R = [k for k in root if k.tag == 'ranks']
    with_threads = [pi for pi in range(len(P)) if any(t[0] == pi for t in tinfo)]
    ranked = [pi for pi in with_threads if P[pi].get('rank') is not None]
    procs = ranked if ranked else with_threads
    if len(procs) < 2:
        need(not R, 'a ranks element with %d program processes' % len(procs))
        return
    need(len(R) == 1, 'no ranks element with %d program processes' % len(procs))
    r = R[0]
    need(r.get('by') == ('mpi-rank' if ranked else 'process'), 'ranks by=')
    need(N(r, 'processes') == len(procs), 'ranks processes=')
    got = [int(k.get('process')[1:]) - 1 for k in r if k.tag == 'rank']
    need(got == procs, 'rank elements %r, expected %r' % (got, procs))
    calls = {pi: {} for pi in procs}
    for t in tinfo:
        if t[0] in calls:
            for f, v in t[3].items():
                calls[t[0]][f] = calls[t[0]].get(f, 0) + v[0]
    allf = sorted(set(f for c in calls.values() for f in c))
    expect = [(f, min(calls[pi].get(f, 0) for pi in procs),
               low_median([calls[pi].get(f, 0) for pi in procs]),
               max(calls[pi].get(f, 0) for pi in procs),
               sum(1 for pi in procs if f in calls[pi])) for f in allf]
    gotf = [(int(k.get('ref')[1:]), N(k, 'min'), N(k, 'median'), N(k, 'max'),
             N(k, 'processes')) for k in r if k.tag == 'function']
    if gotf != expect:
        diff = [(g, e) for g, e in zip(gotf, expect) if g != e]
        raise Fail('ranks functions differ (got, expected): %r' % diff[:3])

def check_names(xml_path, names_path, file_name):
    """The rewritten names appear exactly as sanitized."""
    root = ET.parse(xml_path).getroot()
    F = [k for k in root if k.tag == 'function']
    P = [k for k in root if k.tag == 'process']
    got = {'name': set(f.get('name') for f in F),
           'object': set(f.get('object') for f in F),
           'exe': set(p.get('exe') for p in P),
           'command': set(p.get('command') for p in P)}
    n = 0
    with open(names_path) as f:
        for line in f:
            kind, hx = line.split()
            want = sanitize(bytes.fromhex(hx))
            need(want in got[kind], '%s %r not in the document' % (kind, want))
            n += 1
    need(any('\ufffd' in s for s in got['name']), 'no name needed a replacement')
    need(any('\r' in s and '\n' in s for s in got['name']), 'CR or LF in a name lost')
    files = [p.get('file') for p in P]
    need(sanitize(os.fsencode(file_name)) in files, 'file= %r' % files)
    return n

def main():
    a = sys.argv[1:]
    if a[0] == 'rewrite':
        kw = {}
        for x in a[3:]:
            k, _, v = x.partition('=')
            kw[k] = v if k != 'nasty' else True
        rewrite(a[1], a[2], **kw)
        return 0
    if a[0] == 'cuts':
        # cuts TRACE LISTING XML...: documents of copies of TRACE cut short,
        # each with its stderr beside it (.err for .xml)
        err_re = re.compile(r'parlot-decode: (.*): offset [0-9]+: '
                            r'(truncated|empty file|not a ParLoT)')
        for x in a[3:]:
            base = x[:-len('.xml')]
            with open(base + '.err') as f:
                lines = f.read().splitlines()
            m = err_re.match(lines[0]) if len(lines) == 1 else None
            if not m or m.group(1) != base + '.trace':
                print('%s.trace: stderr is not one line about it: %r' % (base, lines[:3]))
                return 1
            root = ET.parse(x).getroot()
            if not any(p.get('pid') for p in root if p.tag == 'process'):
                continue                  # cut before the PROCESS chunk
            try:
                check_doc(x, [dict(trace=a[1], listing=a[2], mode='prefix',
                                   pid='4242', end='truncated')], None, 'process', [], False)
            except (Fail, ValueError, KeyError) as e:
                print('%s: %s' % (x, e))
                return 1
        print('%d documents' % (len(a) - 3))
        return 0
    if a[0] == 'names':
        try:
            n = check_names(a[1], a[2], a[3])
        except Fail as e:
            print(e)
            return 1
        print('%d names' % n)
        return 0
    # check XML [--select S] [--group-by K] [--group N=S]... [--raw] --proc k=v,k=v ...
    xml_path = a[1]
    procs, select, group_by, groups, raw = [], None, 'process', [], False
    i = 2
    while i < len(a):
        o = a[i]
        if o == '--raw':
            raw = True
            i += 1
            continue
        v = a[i + 1]
        i += 2
        if o == '--proc':
            d = dict(x.split('=', 1) for x in v.split(','))
            d['plain'] = d.get('plain') == '1'
            procs.append(d)
        elif o == '--select':
            select = v
        elif o == '--group-by':
            group_by = v
        elif o == '--group':
            n, _, s = v.partition('=')
            groups.append((n, s))
    try:
        st = check_doc(xml_path, procs, select, group_by, groups, raw)
    except (Fail, ValueError, KeyError, ET.ParseError) as e:
        print('%s: %s' % (type(e).__name__, e))
        return 1
    print(' '.join('%s=%s' % kv for kv in sorted(st.items())))
    return 0

sys.exit(main())
