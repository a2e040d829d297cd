#!/bin/bash
# SPEC §14 figures (issue 39): the on-demand mount against a plain directory. make bench-mount
# runs it on the release build. Needs root (it drops the page cache between cold runs), fuse3,
# git and python3; A: sequential read of a local 1 GiB file (from disk, the content file cached
# and the mount not, both cached); B: ls -lR of 100,000 entries; D: git status in a 10,000-file
# repository; C: first byte of a 50 MB file not local, through docsync-server on loopback.
set -u
B=${B:-.build/release}
W=${TMPDIR:-/tmp}/docsync-mount-figures; rm -rf $W; mkdir -p $W
cleanup() { pkill -f "docsyncd --folder $W" ; pkill -f "docsync-server serve --data $W"; sleep 1; for m in $(grep -o "$W[^ ]*" /proc/self/mountinfo); do umount -l $m; done; }
trap cleanup EXIT
t() { local s=$(date +%s.%N); "$@" > /dev/null 2>&1; local e=$(date +%s.%N); echo "$e - $s" | bc; }
start() { # name folder mode [extra]
  local name=$1 folder=$2 mode=$3; shift 3
  $B/docsyncd --folder $folder --backend "$BACKEND" --device $name --state-dir $W/$name-state --socket $W/$name.sock --mode $mode "$@" > $W/$name.log 2>&1 &
}
waitsettled() { $B/docs-status --socket $W/$1.sock wait --timeout 600 > /dev/null 2>&1; }

# --- A: sequential read of a local 1 GiB file, through the mount and directly
BACKEND=file://$W/store-a
mkdir -p $W/a/Docs
start a $W/a/Docs on-demand; sleep 2
dd if=/dev/urandom of=$W/a/Docs/big.bin bs=1M count=1024 status=none; sync
waitsettled a
C=$W/a-state/folders/Docs/content/big.bin
for round in 1 2 3; do
  echo 3 > /proc/sys/vm/drop_caches; m=$(t dd if=$W/a/Docs/big.bin of=/dev/null bs=1M)
  echo 3 > /proc/sys/vm/drop_caches; d=$(t dd if=$C of=/dev/null bs=1M)
  # the content file in the page cache, the mount's own cache empty: what FUSE itself costs
  echo 3 > /proc/sys/vm/drop_caches; cat $C > /dev/null; mf=$(t dd if=$W/a/Docs/big.bin of=/dev/null bs=1M); df=$(t dd if=$C of=/dev/null bs=1M)
  # both caches full
  mw=$(t dd if=$W/a/Docs/big.bin of=/dev/null bs=1M); dw=$(t dd if=$C of=/dev/null bs=1M)
  echo "A round $round: 1 GiB, ratio = direct time / mount time: from disk mount ${m}s direct ${d}s (x$(echo "scale=2; $d/$m" | bc)); content cached, first read through the mount ${mf}s direct ${df}s (x$(echo "scale=2; $df/$mf" | bc)); both cached mount ${mw}s direct ${dw}s (x$(echo "scale=2; $dw/$mw" | bc))"
done
rm -f $W/a/Docs/big.bin

# --- B: ls -lR of 100,000 entries through the mount against the content directory itself
mkdir -p $W/b/Docs
python3 - "$W/b/Docs" <<'PY'
import os, sys
root = sys.argv[1]
for d in range(1000):
    p = os.path.join(root, "d%04d" % d); os.mkdir(p)
    for f in range(99):
        with open(os.path.join(p, "f%03d.txt" % f), "w") as h: h.write("x")
PY
BACKEND=file://$W/store-b
start b $W/b/Docs on-demand --max-file-size 50MB; sleep 3
waitsettled b
CB=$W/b-state/folders/Docs/content
echo "B entries through the mount: $(find $W/b/Docs | wc -l)"
for round in 1 2 3; do
  echo 3 > /proc/sys/vm/drop_caches; mc=$(t ls -lR $W/b/Docs); echo 3 > /proc/sys/vm/drop_caches; dc=$(t ls -lR $CB)
  # warm: the second of two runs in a row (the drop before the plain run emptied the mount's cache too)
  t ls -lR $W/b/Docs > /dev/null; mw=$(t ls -lR $W/b/Docs); dw=$(t ls -lR $CB)
  echo "B round $round: ls -lR cold: mount ${mc}s plain ${dc}s ratio=$(echo "scale=2; $mc/$dc" | bc)  warm: mount ${mw}s plain ${dw}s ratio=$(echo "scale=2; $mw/$dw" | bc)"
done
kill $(pgrep -f "device b ") 2>/dev/null; sleep 2

# --- D: git status in a 10,000-file repository inside the mount against a plain directory
mkdir -p $W/g/Docs $W/plain
( cd $W/plain && git init -q repo && cd repo && python3 -c "
import os
for d in range(100):
    os.mkdir('d%03d' % d)
    for f in range(100):
        open('d%03d/f%03d.c' % (d, f), 'w').write('int x%d = %d;\n' % (f, d))
" && git add -A && git -c gc.auto=0 -c user.email=b@e -c user.name=b commit -qm init )
cp -a $W/plain/repo $W/g/Docs/repo
BACKEND=file://$W/store-g
start g $W/g/Docs on-demand; sleep 3; waitsettled g
for round in 1 2 3; do
  echo 3 > /proc/sys/vm/drop_caches; mc=$(t git -C $W/g/Docs/repo status); echo 3 > /proc/sys/vm/drop_caches; dc=$(t git -C $W/plain/repo status)
  t git -C $W/g/Docs/repo status > /dev/null; mw=$(t git -C $W/g/Docs/repo status); dw=$(t git -C $W/plain/repo status)
  echo "D round $round: git status (10,000 files) cold: mount ${mc}s plain ${dc}s ratio=$(echo "scale=2; $mc/$dc" | bc)  warm: mount ${mw}s plain ${dw}s ratio=$(echo "scale=2; $mw/$dw" | bc)"
done
kill $(pgrep -f "device g ") 2>/dev/null; sleep 2

[ -n "${SKIP_C:-}" ] && exit 0
# --- C: time to the first byte of a 50 MB file not local, over loopback through docsync-server
PORT=18791
mkdir -p $W/server
$B/docsync-server user add me --data $W/server > $W/token-c1
$B/docsync-server user token me --data $W/server > $W/token-c2
$B/docsync-server serve --data $W/server --listen 127.0.0.1:$PORT > $W/server.log 2>&1 &
sleep 2
BACKEND=http://127.0.0.1:$PORT
mkdir -p $W/c1/Docs $W/c2/Docs
start c1 $W/c1/Docs mirror --token-file $W/token-c1 --max-file-size 60MB
start c2 $W/c2/Docs on-demand --token-file $W/token-c2 --max-file-size 60MB
sleep 2
for round in 1 2 3 4 5; do
  head -c 50000000 /dev/urandom > $W/c1/Docs/big$round.bin
  waitsettled c1; sleep 1; waitsettled c2
  until [ -e $W/c2/Docs/big$round.bin ]; do sleep 0.2; done
  fb=$(python3 -c "
import time, os
s = time.monotonic(); f = os.open('$W/c2/Docs/big$round.bin', os.O_RDONLY); b = os.read(f, 1); e = time.monotonic()
print('%.1f' % ((e - s) * 1000))")
  mid=$(python3 -c "
import time, os
f = os.open('$W/c2/Docs/big$round.bin', os.O_RDONLY); s = time.monotonic(); b = os.pread(f, 4096, 30000000); e = time.monotonic()
print('%.1f' % ((e - s) * 1000))")
  whole=$(t cat $W/c2/Docs/big$round.bin)
  part=$(du -k $W/c2-state/folders/Docs/partial | tail -1 | cut -f1)
  echo "C round $round: 50 MB not local over loopback: first byte ${fb} ms, 4 KiB at 30 MB ${mid} ms, the whole file after ${whole}s; partial cache ${part} KiB"
done
