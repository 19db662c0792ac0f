#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# Debian's linux-source-6.1, the kernel tree `make kunit` (scripts/kunit.sh)
# and `make kselftest` (scripts/kselftest.sh) take their sources from:
# installs the package when /usr/src/linux-source-6.1.tar.xz is missing
# (apt-get install; apt-get update first when that fails) and prints the
# tarball's path. Messages and apt-get's output go to stderr. Exit status 1
# when the package could not be installed.
set -u -o pipefail

tarball=/usr/src/linux-source-6.1.tar.xz

say() { echo "linux-source: $*" >&2; }

if [ ! -f "$tarball" ]; then
	say "installing linux-source-6.1"
	export DEBIAN_FRONTEND=noninteractive
	apt-get install -y -q linux-source-6.1 >&2 ||
		{ apt-get update -q >&2 && apt-get install -y -q linux-source-6.1 >&2; } ||
		{ say "apt-get install linux-source-6.1 failed"; exit 1; }
fi
echo "$tarball"
