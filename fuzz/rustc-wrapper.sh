#!/bin/sh
# run.sh builds through this wrapper (RUSTC_WRAPPER): rustc as given,
# except that the crates that only draw a report (miette and its text
# layout and Unicode tables) are built without comparison tracing
# (-sanitizer-coverage-trace-compares). Their edges are still counted;
# what is dropped is the callback on every comparison, most of the time
# the `diagnostic` harness spent, guiding mutations on comparisons of
# widths and table lookups that no input byte reaches directly.
rustc=$1
shift
case " $* " in
*" --crate-name miette "* | *" --crate-name textwrap "* | \
*" --crate-name unicode_width "* | *" --crate-name owo_colors "* | \
*" --crate-name icu_"* | *" --crate-name zero"* | *" --crate-name yoke "* | \
*" --crate-name tinystr "* | *" --crate-name potential_utf "* | \
*" --crate-name writeable "* | *" --crate-name litemap "* | \
*" --crate-name utf8_iter "* | *" --crate-name utf_types "* | \
*" --crate-name supports_"* | *" --crate-name terminal_size "*)
  for arg; do
    shift
    [ "$arg" = "-Cllvm-args=-sanitizer-coverage-trace-compares" ] || set -- "$@" "$arg"
  done
  ;;
esac
exec "$rustc" "$@"
