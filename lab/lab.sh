#!/usr/bin/env bash
# A lab in a box: N lab hosts on this machine for ansible/, and the end to
# end test that deploys racklab to them. See ansible/README.md, "Lab in a box".
#
#   lab/lab.sh up N      start N hosts (one rack each) and write their inventory
#   lab/lab.sh check     check the hosts hold nothing of racklab's (after teardown.yml)
#   lab/lab.sh down      stop and remove everything `up` made, and check it is gone
#   lab/lab.sh test [N]  up, site.yml, a remote campaign, teardown.yml, down,
#                        checking kernel against engine bytes and what is left
#
# Each host is a network namespace with two NICs (eth0: management, on a
# bridge with this machine's address; eth1: data, on a second bridge), and
# its own sshd, started in a private mount namespace in which /etc (a copy
# of this machine's), /usr/local/bin, /srv and /run are the host's own
# directories: the playbook's user, binary, secret, tier directories and
# worker pidfile land there, not on this machine. There is no systemd in a
# host, so the inventory sets racklab_service: none (the role starts the
# worker as a plain background process with a pidfile).
#
# Needs root, ip, sshd (openssh-server), ssh-keygen, unshare; `test` also
# ansible-playbook (Debian's ansible) and make. Everything lives in
# $RACKLAB_LAB_DIR (default .lab in the repository, which git ignores), which
# `down` removes; `test` keeps the campaign's results in $RACKLAB_LAB_RESULTS
# (default results/lab).
set -euo pipefail

REPO=$(cd "$(dirname "$0")/.." && pwd)
LAB=${RACKLAB_LAB_DIR:-$REPO/.lab}
# RFC 2544 benchmarking addresses, which no real network uses: the
# management /24 has this machine (the coordinator) on .1, host i on .10+i;
# the data /24 has host i on .10+i and no address of this machine.
MGMT_NET=198.19.255
DATA_NET=198.19.254
MGMT_BR=rlab-mbr
DATA_BR=rlab-dbr
NS_PREFIX=racklab-lab-h
MAX_HOSTS=20
# what each host has of its own (a directory of $LAB bind-mounted over it)
PRIVATE=(/etc /usr/local/bin /srv /run)

die() { echo "lab: $*" >&2; exit 1; }
say() { echo "lab: $*"; }

# $LAB goes into ssh's options unquoted, into sshd_config, into the
# inventory's ssh arguments and into a sh -c line: a blank, a quote, \,
# $ or ` in it would split, end or expand a word there (ssh then gets a
# key path cut short, and `up` fails with "ssh does not answer"). sshd
# (which reads AuthorizedKeysFile from the user's home) and `test` (which
# runs the playbooks from the repository) need it absolute.
case $LAB in
*[[:space:]\'\"\\\$\`]*) die "the lab directory '$LAB' has a blank, a quote, \\, \$ or \`, which ssh, sshd or sh would split or expand: set RACKLAB_LAB_DIR to a path without" ;;
/*) ;;
*) LAB=$PWD/$LAB ;;
esac

need() {
	[ "$(id -u)" = 0 ] || die "needs root (network namespaces, bind mounts)"
	local c
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || [ -x "$c" ] || die "needs $c (apt-get install -y openssh-server ansible)"
	done
}

hostdir() { echo "$LAB/hosts/h$1"; }
mgmt_ip() { echo "$MGMT_NET.$((10 + $1))"; }
data_ip() { echo "$DATA_NET.$((10 + $1))"; }
# the sshd that runs host $1 (its pidfile; empty if it is not running)
sshd_pid() {
	local f
	f="$(hostdir "$1")/sshd.pid"
	[ -r "$f" ] && kill -0 "$(cat "$f")" 2>/dev/null && cat "$f"
	return 0
}
lab_hosts() { ip netns list 2>/dev/null | awk '{print $1}' | sed -n "s/^$NS_PREFIX\([0-9][0-9]*\)$/\1/p" | sort -n; }
# a command on host $1 as its own processes see the machine: its network
# and its mount namespace (entered through its sshd)
on_host() {
	local i=$1 pid
	shift
	pid=$(sshd_pid "$i")
	[ -n "$pid" ] || die "host h$i: its sshd is not running"
	nsenter -t "$pid" -n -m -- "$@"
}

cmd_up() {
	local n=${1:-}
	[[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le $MAX_HOSTS ] || die "up N: N is the number of hosts, 1 to $MAX_HOSTS"
	need ip ssh-keygen unshare nsenter /usr/sbin/sshd
	[ ! -e "$LAB" ] || die "$LAB exists: a lab is up (or was left); run: lab/lab.sh down"
	local r
	for r in "$MGMT_NET.1" "$DATA_NET.1"; do
		if ip -4 -o route show match "$r" | grep -v '^default' | grep -q .; then
			die "$r is already routed here ($(ip -4 -o route show match "$r" | grep -v '^default' | head -1)): the lab's addresses would clash"
		fi
	done
	[ -z "$(lab_hosts)" ] || die "lab namespaces exist ($(lab_hosts | sed "s/^/$NS_PREFIX/" | tr '\n' ' ')): run lab/lab.sh down"
	# whatever fails or is interrupted from here on takes the lab down again
	LAB_UP=starting
	mkdir -p "$(dirname "$LAB")"
	mkdir -m 0700 "$LAB" "$LAB/hosts"
	echo "$n" >"$LAB/hosts/count"
	ssh-keygen -q -t ed25519 -N '' -C racklab-lab -f "$LAB/id_ed25519"
	ssh-keygen -q -t ed25519 -N '' -C racklab-lab-host -f "$LAB/ssh_host_ed25519_key"
	cp "$LAB/id_ed25519.pub" "$LAB/authorized_keys"
	: >"$LAB/known_hosts"

	ip link add "$MGMT_BR" type bridge
	ip addr add "$MGMT_NET.1/24" dev "$MGMT_BR"
	ip link set "$MGMT_BR" up
	ip link add "$DATA_BR" type bridge
	ip link set "$DATA_BR" up

	local i ns d p
	for i in $(seq 1 "$n"); do
		ns=$NS_PREFIX$i
		d=$(hostdir "$i")
		ip netns add "$ns"
		ip link add "rlab-h$i-m" type veth peer name eth0 netns "$ns"
		ip link add "rlab-h$i-d" type veth peer name eth1 netns "$ns"
		ip link set "rlab-h$i-m" master "$MGMT_BR" up
		ip link set "rlab-h$i-d" master "$DATA_BR" up
		ip -n "$ns" link set lo up
		ip -n "$ns" addr add "$(mgmt_ip "$i")/24" dev eth0
		ip -n "$ns" addr add "$(data_ip "$i")/24" dev eth1
		ip -n "$ns" link set eth0 up
		ip -n "$ns" link set eth1 up

		mkdir -p "$d/etc" "$d/usr/local/bin" "$d/srv" "$d/run/sshd"
		cp -a /etc/. "$d/etc/"
		chmod 0755 "$d/run" "$d/run/sshd" "$d/srv" "$d/usr/local/bin"
		cat >"$d/sshd_config" <<-EOF
			# lab host h$i (lab/lab.sh)
			ListenAddress $(mgmt_ip "$i")
			HostKey $LAB/ssh_host_ed25519_key
			AuthorizedKeysFile $LAB/authorized_keys
			PidFile $d/sshd.pid
			PermitRootLogin prohibit-password
			PasswordAuthentication no
			KbdInteractiveAuthentication no
			UsePAM no
			# StrictModes would refuse the authorized keys in \$LAB wherever a
			# parent is world-writable or not root's (a temporary directory, a
			# checkout in a user's home); \$LAB itself is 0700
			StrictModes no
			Subsystem sftp internal-sftp
		EOF
		echo "$(mgmt_ip "$i") $(cut -d' ' -f1,2 "$LAB/ssh_host_ed25519_key.pub")" >>"$LAB/known_hosts"
		# sshd, and so every session and the worker, in the host's network
		# and in a mount namespace of its own whose private directories
		# never show outside it
		local mounts=""
		for p in "${PRIVATE[@]}"; do
			mounts+="mount --bind '$d$p' '$p' && "
		done
		ip netns exec "$ns" unshare --mount --propagation private -- \
			sh -c "${mounts}exec /usr/sbin/sshd -f '$d/sshd_config' -E '$d/sshd.log'"
	done
	for i in $(seq 1 "$n"); do
		local ok=""
		for _ in $(seq 1 50); do
			if lab_ssh "$i" true 2>/dev/null; then ok=1; break; fi
			sleep 0.1
		done
		[ -n "$ok" ] || { cat "$(hostdir "$i")/sshd.log" >&2 || true; die "host h$i: ssh to $(mgmt_ip "$i") does not answer"; }
	done
	write_files "$n"
	LAB_UP=""
	say "$n hosts up; inventory $LAB/inventory.yml, campaign $LAB/campaign.yaml"
	say "  ansible-playbook -i $LAB/inventory.yml ansible/site.yml"
	say "  bin/bench run $LAB/campaign.yaml --out results/lab"
	say "  ansible-playbook -i $LAB/inventory.yml ansible/teardown.yml -e racklab_purge=true"
	say "  lab/lab.sh down"
}

ssh_opts() {
	echo "-o BatchMode=yes -o IdentitiesOnly=yes -i $LAB/id_ed25519 -o UserKnownHostsFile=$LAB/known_hosts -o StrictHostKeyChecking=yes -o ControlMaster=no"
}
lab_ssh() {
	local i=$1
	shift
	# shellcheck disable=SC2046
	ssh $(ssh_opts) -o ConnectTimeout=2 "root@$(mgmt_ip "$i")" "$@"
}

# The inventory, the topology it matches (a rack per host) and a small
# remote campaign (the local demo's workload) on it.
write_files() {
	local n=$1 i
	{
		echo "# The lab in a box (lab/lab.sh up $n): a rack per host."
		echo "all:"
		echo "  vars:"
		echo "    racklab_nats: $MGMT_NET.1:4222"
		echo "    racklab_cluster: racklab"
		echo "    racklab_service: none              # no systemd in a lab host"
		echo "    ansible_user: root"
		echo "    ansible_become_method: su            # root already; the hosts have no sudo"
		echo "    ansible_python_interpreter: /usr/bin/python3"
		echo "    ansible_ssh_private_key_file: $LAB/id_ed25519"
		echo "    ansible_ssh_args: -o ControlMaster=no -o IdentitiesOnly=yes -o UserKnownHostsFile=$LAB/known_hosts -o StrictHostKeyChecking=yes"
		echo "    ansible_remote_tmp: /run/ansible-tmp  # the host's own /run"
		echo "    ansible_pipelining: true"
		echo "  hosts:"
		echo "    # the playbooks' group_vars/all.yml wins over the vars above: the"
		echo "    # secrets' directory is set per host, this machine's too"
		echo "    localhost: {ansible_connection: local, racklab_credentials: $LAB/credentials}"
		echo "  children:"
		echo "    workers:"
		echo "      hosts:"
		for i in $(seq 1 "$n"); do
			echo "        lab$i:"
			echo "          ansible_host: $(mgmt_ip "$i")"
			echo "          racklab_host: r$((i - 1))h0"
			echo "          racklab_rack: r$((i - 1))"
			echo "          racklab_slots: 2"
			echo "          racklab_data_addr: $(data_ip "$i")"
			echo "          racklab_member_addr: $(mgmt_ip "$i")"
			echo "          racklab_data_dev: eth1"
			echo "          racklab_credentials: $LAB/credentials"
			echo "          racklab_shape: 25MB               # the rack's uplink (one host per rack)"
			echo "          racklab_shape_share: 25MB:25MB    # shared by demand: sending and receiving sides"
			echo "          racklab_tiers:"
			echo "            - {kind: ssd, dir: /srv/ssd, read: 200MB, write: 150MB, capacity: 4GiB}"
			echo "            - {kind: hdd, dir: /srv/hdd, read: 100MB, write: 80MB, capacity: 8GiB}"
		done
	} >"$LAB/inventory.yml"
	{
		echo "# The lab in a box's topology (lab/lab.sh up $n): as its inventory."
		echo "core_gbps: 0"
		echo "host_defaults:"
		echo "  slots: 2"
		echo "  nic_gbps: 1"
		echo "  tiers:"
		echo "    - {kind: ssd, read_mb_s: 200, write_mb_s: 150, capacity_gib: 4}"
		echo "    - {kind: hdd, read_mb_s: 100, write_mb_s: 80, capacity_gib: 8}"
		echo "racks:"
		for i in $(seq 1 "$n"); do
			echo "  - {name: r$((i - 1)), uplink_gbps: 0.2, hosts: [{name: r$((i - 1))h0}]}"
		done
	} >"$LAB/topology.yaml"
	cat >"$LAB/campaign.yaml" <<-EOF
		# A remote campaign on the lab in a box (lab/lab.sh up $n).
		name: lab
		topology: topology.yaml
		workload:
		  file: $REPO/examples/local/workload.yaml
		  datasets: $REPO/examples/local/datasets.yaml
		seed: 1
		limits: {max_run_time: 5m}
		runs:
		  - mode: remote
		    policies: [fair]
		    listen: $MGMT_NET.1:4222
		    member_addr: $MGMT_NET.1
		    credentials: credentials
	EOF
}

cmd_down() {
	[ "$(id -u)" = 0 ] || die "needs root"
	LAB_UP=""
	local i ns pids
	for i in $(lab_hosts); do
		ns=$NS_PREFIX$i
		# every process of the host: its sshd, sessions, and whatever a
		# failed teardown left running
		pids=$(ip netns pids "$ns" 2>/dev/null || true)
		if [ -n "$pids" ]; then
			# shellcheck disable=SC2086
			kill -TERM $pids 2>/dev/null || true
			for _ in $(seq 1 30); do
				pids=$(ip netns pids "$ns" 2>/dev/null || true)
				[ -n "$pids" ] || break
				sleep 0.1
			done
			# shellcheck disable=SC2086
			[ -z "$pids" ] || kill -KILL $pids 2>/dev/null || true
		fi
		ip netns del "$ns" 2>/dev/null || true
	done
	# ssh clients still talking to the hosts (an interrupted playbook's):
	# they use the lab's key, so their arguments name the lab directory
	pids=$(ps -eo pid=,comm=,args= | awk -v lab="$LAB/" '$2 == "ssh" && index($0, lab) { print $1 }')
	# shellcheck disable=SC2086
	[ -z "$pids" ] || kill -TERM $pids 2>/dev/null || true
	# deleting a namespace deletes its veth ends, and so their peers; any left
	local l
	for l in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' | grep -E "^rlab-h[0-9]+-[md]$" || true); do
		ip link del "$l" 2>/dev/null || true
	done
	for l in "$MGMT_BR" "$DATA_BR"; do
		ip link del "$l" 2>/dev/null || true
	done
	if [ -e "$LAB" ]; then
		# the hosts' directories were bind-mounted only inside their own
		# (now ended) mount namespaces; refuse to remove through a mount
		if findmnt -rn -o TARGET | grep -q "^$LAB"; then
			die "something is mounted under $LAB: $(findmnt -rn -o TARGET | grep "^$LAB" | head -1)"
		fi
		rm -rf "$LAB"
	fi
	check_gone
}

# the lab's processes left on this machine (zombies too)
lab_procs() { ps -eo pid=,args= | grep -F -e "$LAB" -e racklab-worker | grep -v -e grep -e "lab.sh" || true; }
# settle runs a check until it prints nothing, for up to 5 s: a process
# killed a moment ago is a zombie until its parent (PID 1 for a daemon)
# reaps it
settle() {
	local out
	for _ in $(seq 1 50); do
		out=$("$@")
		[ -n "$out" ] || return 0
		sleep 0.1
	done
	echo "$out"
}

# check_gone prints what it checks on this machine and fails if the lab
# left anything.
check_gone() {
	local bad=0 out
	check() { # check WHAT OUTPUT: OUTPUT must be empty
		if [ -z "$2" ]; then
			echo "lab: gone: $1"
		else
			echo "lab: LEFT: $1: $2" >&2
			bad=1
		fi
	}
	check "network namespaces $NS_PREFIX*" "$(lab_hosts | tr '\n' ' ')"
	check "links $MGMT_BR, $DATA_BR, rlab-h*" "$(ip -o link show | awk -F': ' '{print $2}' | grep -E '^rlab-' | tr '\n' ' ' || true)"
	check "routes to $MGMT_NET.0/24, $DATA_NET.0/24" "$(ip -4 -o route show | grep -E "^($MGMT_NET|$DATA_NET)\." || true)"
	check "processes of the lab (sshd, workers, guardians)" "$(settle lab_procs)"
	check "lab directory $LAB (keys, inventory, credentials, hosts' files)" "$(ls -d "$LAB" 2>/dev/null || true)"
	# the playbook wrote only into the hosts' own directories
	out=""
	local f
	for f in /usr/local/bin/racklab-worker /etc/racklab /etc/systemd/system/racklab-worker.service /srv/ssd /srv/hdd /run/racklab; do
		[ ! -e "$f" ] || out+="$f "
	done
	getent passwd racklab >/dev/null && out+="user racklab"
	check "on this machine: racklab's binary, secret, unit, tier directories, run directory, user" "$out"
	unset -f check
	[ "$bad" = 0 ] || die "the lab left something behind (above)"
}

# check_teardown checks, on every host, what teardown.yml (with
# racklab_purge=true) must leave: no worker or guardian process, no qdisc
# of racklab's, no IFB, and none of the role's files or its user.
check_teardown() {
	local i bad=0 out f
	for i in $(lab_hosts); do
		local sshd
		sshd=$(sshd_pid "$i")
		report "h$i: processes besides its sshd" "$(settle host_procs "$i" "$sshd")" || bad=1
		out=$(on_host "$i" tc qdisc show | grep -v -E "^qdisc (noqueue|noop) 0: dev (lo|eth0|eth1) root refcnt [0-9]+ *$" || true)
		report "h$i: qdiscs besides the defaults (tc qdisc show)" "$out" || bad=1
		out=$(on_host "$i" ip -o link show type ifb | awk -F': ' '{print $2}' || true)
		report "h$i: IFB devices" "$out" || bad=1
		out=""
		for f in /usr/local/bin/racklab-worker /etc/racklab /etc/systemd/system/racklab-worker.service /run/racklab; do
			on_host "$i" test ! -e "$f" || out+="$f "
		done
		out+=$(on_host "$i" find /srv /usr/local/bin -mindepth 1 | tr '\n' ' ')
		on_host "$i" getent passwd racklab >/dev/null && out+="user racklab"
		report "h$i: files (binary, secret, unit, run directory, /srv, /usr/local/bin) and user racklab" "$out" || bad=1
	done
	[ "$bad" = 0 ]
}
# the processes in host $1's network namespace but its sshd ($2)
host_procs() {
	local p
	for p in $(ip netns pids "$NS_PREFIX$1"); do
		[ "$p" = "$2" ] || echo "$(ps -o pid=,args= -p "$p" 2>/dev/null || true); "
	done
}
report() {
	if [ -z "$2" ]; then
		echo "lab: none: $1"
	else
		echo "lab: LEFT: $1: $2" >&2
		return 1
	fi
}

cmd_test() {
	local n=${1:-3}
	need ansible-playbook make ip /usr/sbin/sshd
	local out=${RACKLAB_LAB_RESULTS:-$REPO/results/lab}
	local status
	cmd_up "$n"
	# from here, the lab comes down whatever happens
	LAB_UP=testing
	# set -e holds in the subshell only if its status is not tested (a
	# `( ... ) || ...` would turn it off inside): a failed step ends it
	set +e
	(
		set -e
		cd "$REPO"
		export ANSIBLE_HOST_KEY_CHECKING=True ANSIBLE_NOCOLOR=1 ANSIBLE_RETRY_FILES_ENABLED=False
		say "ansible-playbook -i $LAB/inventory.yml ansible/site.yml"
		ansible-playbook -i "$LAB/inventory.yml" ansible/site.yml
		for i in $(seq 1 "$n"); do
			on_host "$i" sh -c 'p=$(cat /run/racklab/racklab-worker.pid) && kill -0 "$p" && echo "lab: h'"$i"' runs: $(ps -o pid=,user=,args= -p "$p")"' ||
				die "h$i: no worker runs after site.yml"
		done
		rm -rf "$out"
		say "bin/bench run $LAB/campaign.yaml --out $out"
		bin/bench run "$LAB/campaign.yaml" --out "$out" --quiet | tee "$LAB/bench.out"
		check_kernel "$out"
		say "ansible-playbook -i $LAB/inventory.yml ansible/teardown.yml -e racklab_purge=true"
		ansible-playbook -i "$LAB/inventory.yml" ansible/teardown.yml -e racklab_purge=true
		check_teardown
	)
	status=$?
	set -e
	cmd_down || status=1
	if [ "$status" = 0 ]; then
		say "PASS: deployed to $n hosts, a remote campaign ran with kernel counts within 3% of the engine's, and nothing was left"
	else
		say "FAIL (above)"
	fi
	return "$status"
}

# check_kernel reads the campaign's summary: kernel-counted cross-rack
# bytes (measured_cross_rack_bytes) within 3% of the engine's.
check_kernel() {
	local sum
	sum=$(find "$1" -name summary.csv | head -1)
	[ -n "$sum" ] || die "no summary.csv under $1"
	awk -F, '
		NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
		{
			e = $col["cross_rack_bytes"]; k = $col["measured_cross_rack_bytes"]
			jobs = $col["jobs"]; failed = $col["failed_jobs"]
			r = (e > 0) ? k / e : 0
			printf "lab: %s seed %s: engine cross-rack %d B, kernel %d B, kernel/engine %.4f, jobs %s (failed %s)\n", $col["policy"], $col["seed"], e, k, r, jobs, failed
			if (!(e > 0) || r < 0.97 || r > 1.03 || failed + 0 > 0) bad = 1
		}
		# a summary without a run checks nothing: not a pass
		END { if (NR < 2) bad = 1; exit bad }' "$sum" || die "kernel counts not within 3% of the engine's (or no run in $sum, no cross-rack bytes, or failed jobs)"
}

# LAB_UP is set while this command owns a lab it must take down if it
# fails or is interrupted (up before it is done, test until its end)
LAB_UP=""
on_exit() {
	local status=$?
	if [ -n "$LAB_UP" ]; then
		echo "lab: failed or interrupted ($LAB_UP): taking the lab down" >&2
		cmd_down >&2 || true
	fi
	exit "$status"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

case "${1:-}" in
up) shift; cmd_up "$@" ;;
down) cmd_down ;;
check) need nsenter tc; check_teardown ;;
test) shift; cmd_test "$@" ;;
ssh) shift; need ssh; i=${1:?ssh I [CMD]: host number}; shift; lab_ssh "$i" "$@" ;;
*) die "usage: lab/lab.sh up N | down | test [N] | check | ssh I [CMD]" ;;
esac
