#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Choose a small seed corpus for a fuzz target from a large one.

    tests/fuzz/pick-seeds.py TARGET DIR...

Runs build/fuzz/fuzz_TARGET on every file of the DIRs on its own, reads the
coverage table it prints (fuzz-cov lines), and picks files greedily until
every entry any of them reached is reached (rarest entries first, smaller
files preferred). Copies the picks into tests/fuzz/corpus/TARGET/ (named by
their SHA-1, like libFuzzer) and prints what is still never reached.
Settings in tests/fuzz/known/TARGET.env apply, as in scripts/fuzz.sh.
"""
import hashlib
import os
import shutil
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))


def target_env(target):
    env = dict(os.environ, SOFTCX_HOST_QUIET='1', SOFTCX_HOST_FATAL='1',
               ASAN_OPTIONS='quarantine_size_mb=16')
    path = os.path.join(ROOT, 'tests', 'fuzz', 'known', target + '.env')
    if os.path.exists(path):
        for line in open(path):
            line = line.strip()
            if line and not line.startswith('#') and '=' in line:
                k, v = line.split('=', 1)
                env[k] = v
    return env


def coverage(binary, env, path):
    """The table entries (name -> count) one input reaches, or None if it crashes."""
    p = subprocess.run([binary, '-runs=1', path], env=env, capture_output=True, text=True)
    if p.returncode:
        return None
    cov = {}
    for line in p.stdout.splitlines():
        if line.startswith('fuzz-cov '):
            parts = line.split()
            # fuzz-cov TARGET NAME... COUNT [flags]
            words = parts[2:]
            for i in range(len(words) - 1, -1, -1):
                if words[i].isdigit():
                    cov[' '.join(words[:i])] = int(words[i])
                    break
    return cov


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    target, dirs = sys.argv[1], sys.argv[2:]
    binary = os.path.join(ROOT, 'build', 'fuzz', 'fuzz_' + target)
    env = target_env(target)
    files = sorted({os.path.join(d, f) for d in dirs for f in os.listdir(d)
                    if os.path.isfile(os.path.join(d, f))}, key=os.path.getsize)
    reach = {}
    names = None
    for f in files:
        cov = coverage(binary, env, f)
        if cov is None:
            print('skipped (crashes):', f)
            continue
        names = names or list(cov)
        reach[f] = {k for k, v in cov.items() if v}
    wanted = set().union(*reach.values()) if reach else set()
    picked = []
    todo = set(wanted)
    while todo:
        rarest = min(todo, key=lambda k: sum(k in r for r in reach.values()))
        best = max((f for f in reach if rarest in reach[f]),
                   key=lambda f: (len(reach[f] & todo), -os.path.getsize(f)))
        picked.append(best)
        todo -= reach[best]
    out = os.path.join(ROOT, 'tests', 'fuzz', 'corpus', target)
    os.makedirs(out, exist_ok=True)
    for f in picked:
        data = open(f, 'rb').read()
        shutil.copyfile(f, os.path.join(out, hashlib.sha1(data).hexdigest()))
    print('%s: %d inputs read, %d picked into %s' % (target, len(reach), len(picked), out))
    for k in names or []:
        if k not in wanted:
            print('  never reached by any input:', k)


if __name__ == '__main__':
    main()
