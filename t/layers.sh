#!/bin/sh
# Layers: no two objects of libmcens.a call each other in a circle (t/layers.py; the layering of
# doc/architecture.md).
. "${T_SRCDIR:-$(dirname "$0")}/tap.sh"
tap_plan 1
lib=$(dirname "$MCENS")/libmcens.a
pycheck layers.py acyclic "$lib"; ok $? "no call circle among the objects of $(basename "$lib")"
exit 0
