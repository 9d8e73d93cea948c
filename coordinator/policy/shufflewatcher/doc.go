// Package shufflewatcher is ShuffleWatcher (Ahmad et al., USENIX ATC 2014)
// as the Dawn, Corral and PushBox specs restate it: a baseline that puts
// each job's maps on a few racks chosen for its input and shuffle
// (SW-1), its reducers where the map output is (SW-2), and that gives a
// free slot to a map rather than a reducer while the network is
// saturated (SW-3), with reducers released only after the maps (SW-4)
// and a starvation bound (SW-6); with PushBox's reading (pushbox.md
// §4.3), maps and reducers also prefer the hosts holding the job's map
// output, and saturation is an EMA of the host's NIC receive
// utilisation. The three specs differ in details; each
// difference is a Config arg whose default is dawn.md §4.2's choice.
package shufflewatcher
