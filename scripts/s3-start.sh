#!/usr/bin/env bash
# Starts a throwaway S3-compatible server (Versity S3 Gateway, posix backend)
# in a private folder on a free loopback port; installs it with go install
# when missing. Usage: scripts/s3-start.sh [DIR]   (default: .s3 under the project)
# Prints nothing but errors; writes DIR/env (OLTPBENCH_TEST_S3_* variables).
set -euo pipefail
. "$(dirname "$0")/alive.sh"
dir=${1:-"$(cd "$(dirname "$0")/.." && pwd)/.s3"}
mkdir -p "$dir/data"
dir=$(cd "$dir" && pwd)
version=v1.8.0
gobin=$(go env GOPATH)/bin
vgw=$(command -v versitygw || echo "$gobin/versitygw")
if [ ! -x "$vgw" ]; then
  echo "s3-start: installing versitygw $version (go install, about a minute)..." >&2
  go install "github.com/versity/versitygw/cmd/versitygw@$version" ||
    { echo "s3-start: go install github.com/versity/versitygw/cmd/versitygw@$version failed" >&2; exit 1; }
  vgw="$gobin/versitygw"
fi
if [ -f "$dir/pid" ] && alive "$(cat "$dir/pid")"; then
  exit 0 # already running
fi
if [ -f "$dir/port" ]; then
  port=$(cat "$dir/port")
else
  port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])' 2>/dev/null ||
       go run "$(dirname "$0")/freeport.go")
fi
# Fresh keys per server: tests grep their output for the secret.
[ -f "$dir/keys" ] || printf 'ak%s sk%s\n' "$(od -An -N8 -tx1 /dev/urandom | tr -d ' \n')" \
  "$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')" >"$dir/keys"
read -r ak sk <"$dir/keys"
mkdir -p "$dir/iam"
ROOT_ACCESS_KEY=$ak ROOT_SECRET_KEY=$sk "$vgw" --port "127.0.0.1:$port" --iam-dir "$dir/iam" posix "$dir/data" >"$dir/server.log" 2>&1 &
echo $! >"$dir/pid"
for _ in $(seq 1 100); do
  if (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then break; fi
  sleep 0.1
done
(exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null ||
  { echo "s3-start: versitygw did not start, see $dir/server.log" >&2; tail -5 "$dir/server.log" >&2; exit 1; }
echo "$port" >"$dir/port"
# A second account, with no rights of its own: the tests grant it reading
# only, to see a forbidden write refused.
"$vgw" admin --access "$ak" --secret "$sk" --endpoint-url "http://127.0.0.1:$port" \
  create-user --access "r$ak" --secret "r$sk" --role user >>"$dir/server.log" 2>&1 || true
cat >"$dir/env" <<ENV
OLTPBENCH_TEST_S3_ENDPOINT=http://127.0.0.1:$port
OLTPBENCH_TEST_S3_ACCESS_KEY=$ak
OLTPBENCH_TEST_S3_SECRET_KEY=$sk
OLTPBENCH_TEST_S3_DATA=$dir/data
OLTPBENCH_TEST_S3_READER_KEY=r$ak
OLTPBENCH_TEST_S3_READER_SECRET=r$sk
ENV
