package traffic

import "fmt"

// Class is a traffic class: what a transfer is for. The job classes come
// first, so the engine can count bytes of those alone (NumJobClasses).
type Class uint8

// Traffic classes.
const (
	Input      Class = iota // task input read from another host (a dataset block)
	Shuffle                 // map output fetched by reducers or generic stages
	Dependent               // data a downstream job waits on (a parent job's output)
	Duplicate               // anything read by a speculative or duplicate attempt
	Output                  // job output replicas pushed to other hosts
	Background              // rebalancing, prefetch, anything that can wait
	Control                 // small control messages
	NumClasses
)

// NumJobClasses is the number of classes a job's own transfers use: Input
// to Output.
const NumJobClasses = Output + 1

var classNames = [NumClasses]string{"input", "shuffle", "dependent", "duplicate", "output", "background", "control"}

func (c Class) String() string {
	if c < NumClasses {
		return classNames[c]
	}
	return fmt.Sprintf("class(%d)", uint8(c))
}

// ParseClass turns a class name ("input", "shuffle", ...) into a Class.
func ParseClass(s string) (Class, error) {
	for i, n := range classNames {
		if n == s {
			return Class(i), nil
		}
	}
	return 0, fmt.Errorf("unknown traffic class %q (want one of %v)", s, classNames)
}

// DSCP codepoints (RFC 2474 class selectors, RFC 2597 assured forwarding,
// RFC 8622 lower effort).
const (
	dscpLE   = 1
	dscpCS1  = 8
	dscpAF11 = 10
	dscpCS2  = 16
	dscpAF21 = 18
	dscpCS3  = 24
	dscpAF31 = 26
	dscpCS4  = 32
	dscpAF41 = 34
	dscpCS5  = 40
	dscpCS6  = 48
)

// defaultDSCP is each class's mark before a scheduler sets one. Only two
// of them are in the priority table: Duplicate's CS1 is the reserved
// lowest band (a duplicate yields to everything) and Background's LE the
// background band; the rest fall into best effort, so that traffic no
// scheduler has ranked shares fairly.
var defaultDSCP = [NumClasses]uint8{
	Input:      dscpAF11,
	Shuffle:    dscpAF21,
	Dependent:  dscpAF31,
	Duplicate:  dscpCS1,
	Output:     dscpAF41,
	Background: dscpLE,
	Control:    dscpCS6,
}

// DSCP returns the class's default DSCP (0, best effort, for an unknown
// class).
func (c Class) DSCP() uint8 {
	if c < NumClasses {
		return defaultDSCP[c]
	}
	return 0
}
