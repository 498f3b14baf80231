package ptytest

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// screen is a minimal terminal: enough of cursor addressing, erasing, scrolling
// regions and line insertion for a full-screen program's text to land in the cells
// it aims at. Colours and attributes are dropped; wide characters take one cell.
type screen struct {
	rows, cols   int
	cells        [][]rune
	r, c         int
	top, bottom  int // scrolling region, 0-based inclusive
	savedR, savC int
}

func newScreen(rows, cols int) *screen {
	s := &screen{rows: rows, cols: cols, bottom: rows - 1}
	s.cells = make([][]rune, rows)
	for i := range s.cells {
		s.cells[i] = blank(cols)
	}
	return s
}

func blank(n int) []rune {
	l := make([]rune, n)
	for i := range l {
		l[i] = ' '
	}
	return l
}

// Text is the screen's rows, trailing blanks cut, one per line.
func (s *screen) Text() string {
	var b strings.Builder
	for _, l := range s.cells {
		b.WriteString(strings.TrimRight(string(l), " "))
		b.WriteByte('\n')
	}
	return b.String()
}

func (s *screen) clamp() {
	s.r = min(max(s.r, 0), s.rows-1)
	s.c = min(max(s.c, 0), s.cols-1)
}

// scrollUp moves the region's lines up by n, blank lines entering at its bottom.
func (s *screen) scrollUp(n int) {
	for ; n > 0; n-- {
		copy(s.cells[s.top:s.bottom], s.cells[s.top+1:s.bottom+1])
		s.cells[s.bottom] = blank(s.cols)
	}
}

// scrollDown moves the region's lines down by n, blank lines entering at its top.
func (s *screen) scrollDown(n int) {
	for ; n > 0; n-- {
		copy(s.cells[s.top+1:s.bottom+1], s.cells[s.top:s.bottom])
		s.cells[s.top] = blank(s.cols)
	}
}

func (s *screen) lineFeed() {
	if s.r == s.bottom {
		s.scrollUp(1)
	} else if s.r < s.rows-1 {
		s.r++
	}
}

// feed interprets program output (all of it, from the start).
func (s *screen) feed(b []byte) {
	str := string(b)
	for i := 0; i < len(str); {
		ch := str[i]
		switch {
		case ch == 0x1b:
			i = s.escape(str, i)
			continue
		case ch == '\r':
			s.c = 0
		case ch == '\n':
			s.lineFeed()
		case ch == '\b':
			if s.c > 0 {
				s.c--
			}
		case ch < 0x20 || ch == 0x7f:
		default:
			r, n := utf8.DecodeRuneInString(str[i:])
			if s.c >= s.cols {
				s.c = 0
				s.lineFeed()
			}
			s.cells[s.r][s.c] = r
			s.c++
			i += n
			continue
		}
		i++
	}
}

// escape interprets the sequence at str[i] and returns the index after it.
func (s *screen) escape(str string, i int) int {
	if i+1 >= len(str) {
		return len(str)
	}
	switch str[i+1] {
	case '[':
		j := i + 2
		for j < len(str) && (str[j] < 0x40 || str[j] > 0x7e) {
			j++
		}
		if j >= len(str) {
			return len(str)
		}
		s.csi(str[i+2:j], str[j])
		return j + 1
	case ']', 'P', '_', '^':
		for j := i + 2; j < len(str); j++ {
			if str[j] == 0x07 {
				return j + 1
			}
			if str[j] == 0x1b && j+1 < len(str) && str[j+1] == '\\' {
				return j + 2
			}
		}
		return len(str)
	case '(', ')', '#':
		return min(len(str), i+3)
	case 'M': // reverse index
		if s.r == s.top {
			s.scrollDown(1)
		} else if s.r > 0 {
			s.r--
		}
	case 'D':
		s.lineFeed()
	case 'E':
		s.c = 0
		s.lineFeed()
	case '7':
		s.savedR, s.savC = s.r, s.c
	case '8':
		s.r, s.c = s.savedR, s.savC
	}
	return i + 2
}

func (s *screen) csi(params string, final byte) {
	private := strings.HasPrefix(params, "?") || strings.HasPrefix(params, ">") || strings.HasPrefix(params, "<") || strings.HasPrefix(params, "=")
	if private {
		if params == "?1049" || params == "?47" || params == "?1047" {
			for r := range s.cells { // the alternate screen, entered or left: blank
				s.cells[r] = blank(s.cols)
			}
		}
		return // other modes, keyboard protocols: nothing on screen
	}
	s.clamp() // a cursor past the last column (a wrap pending) acts from the last one
	var ps []int
	for _, p := range strings.Split(params, ";") {
		n, _ := strconv.Atoi(p)
		ps = append(ps, n)
	}
	arg := func(k, def int) int {
		if k < len(ps) && ps[k] > 0 {
			return ps[k]
		}
		return def
	}
	switch final {
	case 'H', 'f':
		s.r, s.c = arg(0, 1)-1, arg(1, 1)-1
	case 'A':
		s.r -= arg(0, 1)
	case 'B':
		s.r += arg(0, 1)
	case 'C':
		s.c += arg(0, 1)
	case 'D':
		s.c -= arg(0, 1)
	case 'G':
		s.c = arg(0, 1) - 1
	case 'd':
		s.r = arg(0, 1) - 1
	case 'J':
		switch arg(0, 0) {
		case 0:
			copy(s.cells[s.r][s.c:], blank(s.cols-s.c))
			for r := s.r + 1; r < s.rows; r++ {
				s.cells[r] = blank(s.cols)
			}
		case 1:
			for r := 0; r < s.r; r++ {
				s.cells[r] = blank(s.cols)
			}
			copy(s.cells[s.r][:s.c+1], blank(s.c+1))
		default:
			for r := range s.cells {
				s.cells[r] = blank(s.cols)
			}
		}
	case 'K':
		switch arg(0, 0) {
		case 0:
			copy(s.cells[s.r][s.c:], blank(s.cols-s.c))
		case 1:
			copy(s.cells[s.r][:s.c+1], blank(s.c+1))
		default:
			s.cells[s.r] = blank(s.cols)
		}
	case 'X':
		n := min(arg(0, 1), s.cols-s.c)
		copy(s.cells[s.r][s.c:s.c+n], blank(n))
	case 'r':
		s.top, s.bottom = arg(0, 1)-1, arg(1, s.rows)-1
		if s.top >= s.bottom || s.bottom >= s.rows {
			s.top, s.bottom = 0, s.rows-1
		}
		s.r, s.c = 0, 0
	case 'S':
		s.scrollUp(arg(0, 1))
	case 'T':
		s.scrollDown(arg(0, 1))
	case 'L', 'M':
		if s.r < s.top || s.r > s.bottom {
			break
		}
		top := s.top
		s.top = s.r
		if final == 'L' {
			s.scrollDown(arg(0, 1))
		} else {
			s.scrollUp(arg(0, 1))
		}
		s.top = top
	}
	s.clamp()
}
