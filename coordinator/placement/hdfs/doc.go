// Package hdfs is HDFS's default block placement, rack-aware: the first
// replica on a random host (the writer), the second on a host of another
// rack, the third on another host of the second's rack, further ones on
// random hosts; never two replicas on one host. Replicas go to one tier,
// or to tiers drawn from a mix (Trident's setup).
package hdfs
