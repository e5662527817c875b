# Checks, and where it can installs, the third-party tools the test suites drive. Sourced by
# bin/test (so the README's test command is all a fresh machine needs) and thereby by .ci/run.
#
#   moto_server   the AWS emulator (CloudWatch, CloudFormation, Athena's API, Glue, S3)
#   cfn-lint      CloudFormation's linter, run over every generated template
#   chromium      Debian's browser and its driver, for the status page's browser suite
#   Java 25       the JDK the real Trino runs on (the build itself stays on Java 17)
#
# A tool that is missing and cannot be installed stops the run with the command that installs it;
# no suite is ever skipped for want of a tool.

tidemark_need_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi
}

tidemark_check_test_tools() {
  local missing=()
  command -v moto_server >/dev/null 2>&1 || python3 -c "import moto.server" 2>/dev/null || missing+=("moto[server]")
  command -v cfn-lint >/dev/null 2>&1 || missing+=("cfn-lint")
  if [ ${#missing[@]} -gt 0 ]; then
    echo "bin/test: installing ${missing[*]} (pip)" >&2
    python3 -m pip install --quiet "${missing[@]}" || {
      echo "bin/test: cannot install ${missing[*]}; install them with: pip install ${missing[*]}" >&2
      return 1
    }
  fi

  # Debian's chromium through Debian's chromedriver: never a browser a test tool downloads.
  if [ ! -x /usr/bin/chromium ] || [ ! -x /usr/bin/chromedriver ]; then
    echo "bin/test: installing chromium chromium-driver (apt-get)" >&2
    { tidemark_need_root apt-get update -q >/dev/null \
        && DEBIAN_FRONTEND=noninteractive tidemark_need_root apt-get install -y -q chromium chromium-driver >/dev/null; } || {
      echo "bin/test: cannot install chromium and chromium-driver; install them with: sudo apt-get install -y chromium chromium-driver" >&2
      return 1
    }
  fi

  local java25="${TRINO_JAVA_HOME:-/usr/lib/jvm/temurin-25-jdk-amd64}"
  if [ ! -x "$java25/bin/java" ]; then
    echo "bin/test: no Java 25 at $java25 for the Trino suites; install Temurin 25 and point TRINO_JAVA_HOME at it" >&2
    return 1
  fi
}
