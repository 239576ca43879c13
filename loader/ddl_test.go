package loader

import (
	"strings"
	"testing"

	"github.com/pingcap/tidb/pkg/parser"
)

func TestSplitDDL(t *testing.T) {
	for _, c := range []struct {
		name, ddl         string
		createHas, notHas []string
		postLoad          string
	}{
		{
			name:      "sysbench: CREATE INDEX moves after",
			ddl:       "CREATE TABLE sbtest1(id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER DEFAULT '0' NOT NULL, PRIMARY KEY (id)) /*! ENGINE = innodb */;\nCREATE INDEX k_1 ON sbtest1(k)",
			createHas: []string{"PRIMARY KEY", "AUTO_INCREMENT", "ENGINE = innodb"},
			postLoad:  "ALTER TABLE `sbtest1` ADD INDEX `k_1`(`k`)",
		},
		{
			name:      "inline keys and a foreign key, all in one ALTER",
			ddl:       "CREATE TABLE t (a INT, b INT, c INT, PRIMARY KEY (a) /*T![clustered_index] CLUSTERED */, KEY ib (b), UNIQUE KEY uc (c), FOREIGN KEY fk (b) REFERENCES u (x))",
			createHas: []string{"PRIMARY KEY", "CLUSTERED"},
			notHas:    []string{"`ib`", "`uc`", "FOREIGN"},
			postLoad:  "ALTER TABLE `t` ADD INDEX `ib`(`b`), ADD UNIQUE `uc`(`c`), ADD CONSTRAINT `fk` FOREIGN KEY (`b`) REFERENCES `u`(`x`)",
		},
		{
			name:      "sysbench --secondary: the key an AUTO_INCREMENT column needs stays",
			ddl:       "CREATE TABLE sbtest1(id INTEGER NOT NULL AUTO_INCREMENT, k INTEGER, KEY xid (id))",
			createHas: []string{"INDEX `xid`(`id`)"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, err := SplitDDL(c.ddl)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range c.createHas {
				if !strings.Contains(s.Create, h) {
					t.Errorf("base table lacks %q: %s", h, s.Create)
				}
			}
			for _, h := range c.notHas {
				if strings.Contains(s.Create, h) {
					t.Errorf("base table keeps %q: %s", h, s.Create)
				}
			}
			if s.PostLoad != c.postLoad {
				t.Errorf("post-load %q, want %q", s.PostLoad, c.postLoad)
			}
			if s.PostLoad != "" && s.AlterFor(nil) != s.PostLoad {
				t.Errorf("AlterFor(nothing there) %q, want %q", s.AlterFor(nil), s.PostLoad)
			}
			if s.AlterFor(lower(s.Indexes)) != "" {
				t.Errorf("AlterFor(all there) = %q", s.AlterFor(lower(s.Indexes)))
			}
			for _, ix := range s.Indexes {
				if !strings.Contains(s.Combined, "`"+ix+"`") {
					t.Errorf("combined DDL lacks %s: %s", ix, s.Combined)
				}
			}
			// Everything produced parses again.
			p := parser.New()
			for _, q := range append([]string{s.Create, s.PostLoad, s.Combined}, s.Full...) {
				if q == "" {
					continue
				}
				if _, _, err := p.Parse(q, "", ""); err != nil {
					t.Errorf("output does not parse: %v: %s", err, q)
				}
			}
		})
	}
}

func TestSplitDDLRejects(t *testing.T) {
	for _, ddl := range []string{"CREATE TABLE", "DROP TABLE t", "CREATE INDEX i ON t(a)"} {
		if _, err := SplitDDL(ddl); err == nil {
			t.Errorf("accepted %q", ddl)
		}
	}
}

func lower(names []string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[strings.ToLower(n)] = true
	}
	return m
}
