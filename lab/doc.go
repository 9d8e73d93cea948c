// Package lab holds the lab in a box (lab.sh): lab hosts on this machine,
// each a network namespace with its own sshd and its own /etc,
// /usr/local/bin, /srv and /run, for ansible/ to deploy racklab's workers
// to. Its test runs `lab.sh test`: the playbooks deploy to three hosts, a
// remote campaign runs against them with kernel-counted cross-rack bytes,
// and teardown leaves nothing. See ansible/README.md, "Lab in a box".
package lab
