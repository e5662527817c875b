# Sourced by bin/demo and bin/bench: builds Tidemark once and records the class path and JVM
# options of the end-to-end module (src/test), which holds the demo and the benchmarks; later
# calls reuse the build until a source changes. Sets $build_dir, $classpath_file, $jvm_opts_file.
build_dir=src/test/target
classpath_file=$build_dir/demo.classpath
jvm_opts_file=$build_dir/demo.jvm-options

needs_build() {
  [ -f "$classpath_file" ] && [ -f "$jvm_opts_file" ] || return 0
  [ -n "$(find pom.xml metrics-model ingest-job reconciler examples src/test/pom.xml src/test/java src/test/resources \
      \( -path '*/target' -prune \) -o -type f -newer "$classpath_file" -print 2>/dev/null | head -1)" ]
}

if needs_build; then
  echo "Building Tidemark (once; later runs reuse the build)..."
  mvn -B -q -ntp install -DskipTests -Dspotless.check.skip=true
  mvn -B -q -ntp -pl src/test test-compile dependency:build-classpath \
    -Dspotless.check.skip=true -Dmdep.outputFile=target/demo.classpath -Dmdep.includeScope=test
  # Spark's JVM options, from the root pom's spark.jvm.opens property (one source for tests and demo).
  sed -n 's:.*<spark.jvm.opens>\(.*\)</spark.jvm.opens>.*:\1:p' pom.xml > "$jvm_opts_file"
  [ -s "$jvm_opts_file" ] || { echo "$0: cannot read spark.jvm.opens from pom.xml" >&2; exit 1; }
  echo
fi

export SPARK_LOCAL_IP="${SPARK_LOCAL_IP:-127.0.0.1}"
