# Sourced by .ci/run (and by anyone who wants CI's Node): put Node.js $HERALD_NODE_VERSION first on PATH.
# Where the machine's node is older than that major, the npm registry's node-linux-<arch> package brings it (the
# registry is the one network CI is sure to reach); npm pack checks the tarball against the registry's integrity.
# That package carries node and its headers but no npm, so the machine's own npm runs under it, and native addons
# (better-sqlite3, built from source here) compile against its headers, not the machine's.
HERALD_NODE_VERSION="${HERALD_NODE_VERSION:-24.22.3}"
herald_node_major="${HERALD_NODE_VERSION%%.*}"
if [ "$(node -p 'process.versions.node.split(".")[0]' 2>/dev/null || echo 0)" -lt "$herald_node_major" ]; then
  case "$(uname -m)" in
    x86_64) herald_node_arch=x64 ;;
    aarch64 | arm64) herald_node_arch=arm64 ;;
    *) echo "use-node: no node-linux package for $(uname -m); install Node.js $herald_node_major yourself" >&2; return 1 ;;
  esac
  herald_node_home="${HERALD_CACHE:-${XDG_CACHE_HOME:-${HOME:-/tmp}/.cache}/herald}/node-$HERALD_NODE_VERSION-$herald_node_arch"
  if [ ! -x "$herald_node_home/package/bin/node" ]; then
    mkdir -p "$herald_node_home"
    (cd "$herald_node_home" && npm pack --silent "node-linux-$herald_node_arch@$HERALD_NODE_VERSION" >/dev/null &&
      tar xzf "node-linux-$herald_node_arch-$HERALD_NODE_VERSION.tgz" && rm "node-linux-$herald_node_arch-$HERALD_NODE_VERSION.tgz")
  fi
  herald_npm_cli="$(npm root -g)/npm/bin"
  mkdir -p "$herald_node_home/bin"
  ln -sf "$herald_node_home/package/bin/node" "$herald_node_home/bin/node"
  for tool in npm npx; do
    printf '#!/bin/sh\nexec "%s" "%s/%s-cli.js" "$@"\n' "$herald_node_home/package/bin/node" "$herald_npm_cli" "$tool" >"$herald_node_home/bin/$tool"
    chmod +x "$herald_node_home/bin/$tool"
  done
  export PATH="$herald_node_home/bin:$PATH"
  export npm_config_nodedir="$herald_node_home/package"
fi
echo "node $(node -v), npm $(npm -v)"
