#!/bin/bash
# Clone fetched repository snapshots into corpus checkouts for
# bench/init_corpus.py (issue 30, item 7).
#
# usage: bench/clone_corpus.sh LISTFILE [MIRRORS] [CHECKOUTS]
#   LISTFILE   lines "owner/name checkout commit" (from repos.json:
#              python3 -c 'import json; [print(r["repo"], r["checkout"], r["commit"]) for r in json.load(open("bench/init-corpus/repos.json"))["repos"]]')
#   MIRRORS    where the snapshots are, one git directory per repository at
#              MIRRORS/<owner>+<name>/repo (default /work/.mirror)
#   CHECKOUTS  where the checkouts go (default /tmp/corpus)
#
# Each checkout is at the recorded commit, detached. Blobs a snapshot lacks
# (large data files kept out of the mirror) are marked assume-unchanged, so
# the runner sees a clean tree; their list is kept in
# CHECKOUT/.git/sota-missing.txt. Run it once per list: a second run on
# the same checkout rewrites that list.
list=${1:?usage: clone_corpus.sh LISTFILE [MIRRORS] [CHECKOUTS]}
mirrors=${2:-/work/.mirror}
checkouts=${3:-/tmp/corpus}
mkdir -p "$checkouts"
while read -r repo co commit; do
  [ -n "$repo" ] || continue
  src=$mirrors/${repo/\//+}/repo
  dst=$checkouts/$co
  if [ ! -d "$src" ]; then echo "NOT-FETCHED $repo"; continue; fi
  if [ ! -d "$dst/.git" ]; then git clone -q --no-checkout "$src" "$dst" 2>/dev/null; fi
  if ! git -C "$dst" cat-file -e "$commit^{commit}" 2>/dev/null; then echo "NO-COMMIT $repo $commit"; continue; fi
  git -C "$dst" checkout -q -f --detach "$commit" 2>/dev/null
  git -C "$dst" -c core.quotepath=off status --porcelain -z --untracked-files=no \
    | tr '\0' '\n' | awk 'substr($0,1,2)==" D"{print substr($0,4)}' > "$dst/.git/sota-missing.txt"
  if [ -s "$dst/.git/sota-missing.txt" ]; then
    tr '\n' '\0' < "$dst/.git/sota-missing.txt" | xargs -0 git -C "$dst" update-index --assume-unchanged
  fi
  left=$(git -C "$dst" status --porcelain --untracked-files=no | wc -l)
  echo "OK $repo $co missing=$(wc -l < "$dst/.git/sota-missing.txt") dirty=$left"
done < "$list"
