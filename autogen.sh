#!/bin/sh
# Generates ./configure from configure.ac (needs autoconf, automake, libtool, pkg-config).
set -e
cd "$(dirname "$0")"
mkdir -p m4 build-aux
autoreconf --force --install
echo "Now run ./configure && make"
