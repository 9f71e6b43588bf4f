#!/bin/sh
# Installs what rocesim needs to build, test and analyse, on Debian or Ubuntu.
# Other systems: install a C compiler, autoconf, automake, libtool, pkg-config and the
# development files of SQLite 3, libpcap, GSL, CUnit, inih, zlib and protobuf-c (with
# its compiler protoc-c), and the sqlite3 shell, gnuplot, tshark and python3 that the
# tests and analysis use (e.g. Fedora: sqlite-devel libpcap-devel gsl-devel CUnit-devel
# inih-devel zlib-devel protobuf-c-devel protobuf-c-compiler sqlite gnuplot wireshark-cli
# libtool python3; macOS with Homebrew: sqlite libpcap gsl cunit inih zlib protobuf-c
# gnuplot wireshark autoconf automake libtool pkg-config python3).
set -eu
SUDO=
if [ "$(id -u)" -ne 0 ]; then SUDO=sudo; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends \
	build-essential autoconf automake libtool pkg-config python3 \
	libsqlite3-dev libpcap-dev libgsl-dev libcunit1-dev libinih-dev \
	libprotobuf-c-dev protobuf-c-compiler \
	zlib1g-dev sqlite3 gnuplot-nox tshark \
	libopenmpi-dev openmpi-bin libmetis-dev >/dev/null
echo "install-deps: build, test and analysis dependencies installed"
