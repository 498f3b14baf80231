package recorder

// NewBytesReader reads the header of the recording held whole in data. The
// entries' lines, and the strings of their messages, are slices of data rather
// than copies (data must not be modified while they are in use; a frame recorded
// with a newline gets it written over the entry's closing brace in data): a
// caller that keeps every frame of a large recording keeps the file once, not
// once more in one small allocation per line. name is used in errors.
func NewBytesReader(data []byte, name string) (*Reader, error) {
	return newReader(&Reader{mem: data, inMem: true, name: name})
}
