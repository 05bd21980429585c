# SPDX-License-Identifier: MIT
"""A random single-thread program as a script_trace script, for the
folding tests of test_replay.sh: nested loops whose bodies call further
blocks, odd iterations (an extra call now and then), recursion, noise.

usage: random_prog.py SEED SCRIPT
writes SCRIPT and SCRIPT.calls, one line per call in order:
"1 NUMBER DEPTH OBJECT NAME" (thread, event number, depth, object, name).
"""
import random
import sys

rnd = random.Random(int(sys.argv[1]))
NAMES = ["f%d" % i for i in range(12)]
out, calls = [], []
state = {"n": 0, "d": 0}


def call(name):
    state["n"] += 1
    state["d"] += 1
    calls.append("1 %d %d /bin/r %s" % (state["n"], state["d"], name))
    out.append("call 1 " + name)


def ret():
    state["n"] += 1
    state["d"] -= 1
    out.append("return 1")


LIMIT = 30000          # calls: the program stops growing past it


def block(depth):
    """A few random items: loops of a body, recursion, single calls."""
    for _ in range(rnd.randint(1, 4)):
        if len(calls) > LIMIT:
            return
        r = rnd.random()
        if r < 0.35 and depth < 5:
            body = [rnd.choice(NAMES) for _ in range(rnd.randint(1, 4))]
            for _ in range(rnd.randint(2, 20)):
                for name in body:
                    if rnd.random() < 0.03:          # an odd iteration
                        call(rnd.choice(NAMES))
                        ret()
                    call(name)
                    if depth < 4 and rnd.random() < 0.25:
                        block(depth + 1)
                    ret()
        elif r < 0.45:
            k = rnd.randint(1, 40)                   # recursion
            for _ in range(k):
                call("rec")
            for _ in range(k):
                ret()
        else:
            call(rnd.choice(NAMES))
            if depth < 6 and rnd.random() < 0.4:
                block(depth + 1)
            ret()


call("main")
for _ in range(rnd.randint(1, 5)):
    block(1)
ret()
head = ["process pid=%d exe=/bin/r" % (1000 + int(sys.argv[1])),
        "object /bin/r"]
head += ["function %s /bin/r" % n for n in NAMES + ["main", "rec"]]
head += ["thread 1"]
with open(sys.argv[2], "w") as f:
    f.write("\n".join(head + out + ["end"]) + "\n")
with open(sys.argv[2] + ".calls", "w") as f:
    f.write("\n".join(calls) + "\n")
