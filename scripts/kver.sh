#!/bin/sh
# The kernel to build against: the running one if it has a build tree, else
# the newest installed kernel with headers.
r=$(uname -r)
if [ -d "/lib/modules/$r/build" ]; then echo "$r"; exit 0; fi
ls -d /lib/modules/*/build 2>/dev/null | sed 's|/lib/modules/||; s|/build||' | sort -V | tail -n 1
