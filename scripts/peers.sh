# peers.sh, sourced by the bench-*.sh scripts: makes sure Redis 8.0.2, Valkey
# 8.1.1 and valkey-benchmark are in $PEERS_DIR/bin, running the shared
# installer (INSTALLER, or ../shared/peers/install.sh searched upwards from
# the repository) when they are not. Needs ROOT, PEERS_DIR and die.
ensure_peers() {
	local need=(redis8-server valkey-server valkey-benchmark valkey-cli) missing=0 b
	for b in "${need[@]}"; do [[ -x $PEERS_DIR/bin/$b ]] || missing=1; done
	((missing)) || return 0
	local inst=${INSTALLER:-} d
	if [[ -z $inst ]]; then
		for d in "$ROOT/.." "$ROOT/../.." "$ROOT/../../.."; do
			if [[ -x $d/shared/peers/install.sh ]]; then inst=$d/shared/peers/install.sh; break; fi
		done
	fi
	[[ -n $inst && -f $inst ]] || die "peers missing in $PEERS_DIR/bin and no installer found (set INSTALLER=path/to/install.sh)"
	echo "installing peers into $PEERS_DIR with $inst" >&2
	bash "$inst" "$PEERS_DIR" >&2
}
