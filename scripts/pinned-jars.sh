# Sourced by the setup scripts that fetch jars from Maven Central. The caller sets DIR (its
# build folder) and JARS, entries "group:artifact:version[:classifier] sha256" in class path
# order, and defines die.

# The file name mvn gives an entry's jar: artifact-version[-classifier].jar.
pinned_jar_name() {
  local _group artifact version classifier
  IFS=: read -r _group artifact version classifier <<<"${1%% *}"
  echo "$artifact-$version${classifier:+-$classifier}.jar"
}

# Fetches each jar of JARS not yet fetched and checked into $DIR/jars (mvn's own store in
# $DIR/m2; mvn checks Central's checksums with -C, this checks ours), then removes jars no
# longer pinned. $1 names the caller in what it prints.
fetch_pinned_jars() {
  local who=$1 entry coords sha group artifact version classifier jar got keep
  local copy=org.apache.maven.plugins:maven-dependency-plugin:3.8.1:copy
  mkdir -p "$DIR/jars"
  for entry in "${JARS[@]}"; do
    read -r coords sha <<<"$entry"
    IFS=: read -r group artifact version classifier <<<"$coords"
    jar=$DIR/jars/$(pinned_jar_name "$coords")
    if [ -f "$jar" ] && [ -f "$jar.ok" ]; then continue; fi
    echo "$who: fetching $coords"
    rm -f "$jar" "$jar.ok" "$DIR/classpath"
    mvn -B -C -Dstyle.color=never -Dmaven.repo.local="$PWD/$DIR/m2" "$copy" \
      -Dartifact="$group:$artifact:$version${classifier:+:jar:$classifier}" \
      -DoutputDirectory="$PWD/$DIR/jars" -Dtransitive=false >"$DIR/mvn.log" 2>&1 \
      || { tail -n 30 "$DIR/mvn.log" >&2; die "mvn could not fetch $coords (log: $DIR/mvn.log)"; }
    [ -f "$jar" ] || die "mvn did not produce $jar"
    got=$(sha256sum "$jar" | cut -d' ' -f1)
    [ "$got" = "$sha" ] || { rm -f "$jar"; die "$jar has SHA-256 $got, expected $sha"; }
    touch "$jar.ok"
  done
  for jar in "$DIR"/jars/*.jar; do
    keep=0
    for entry in "${JARS[@]}"; do
      [ "$jar" = "$DIR/jars/$(pinned_jar_name "$entry")" ] && keep=1
    done
    ((keep)) || { echo "$who: removing stale $jar"; rm -f "$jar" "$jar.ok"; }
  done
}

# Writes the jars' class path to $DIR/classpath (only when it changed), last: its presence
# means setup is complete.
write_pinned_classpath() {
  local entry cp=""
  for entry in "${JARS[@]}"; do
    cp+="${cp:+:}$PWD/$DIR/jars/$(pinned_jar_name "$entry")"
  done
  [ "$(cat "$DIR/classpath" 2>/dev/null)" = "$cp" ] || echo "$cp" > "$DIR/classpath"
}
