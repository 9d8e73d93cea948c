// Package utf8text finds where text that must be UTF-8 is not, as a
// line and a column a user can go to: the input formats (YAML files,
// SWIM traces, query plans and mix files) refuse such text naming the
// place, where the libraries that read them say only that an octet is
// invalid, or pass it on into a file that another tool then cannot read.
package utf8text
