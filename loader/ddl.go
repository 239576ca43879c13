package loader

import (
	"fmt"
	"strings"

	"github.com/pingcap/tidb/pkg/parser"
	"github.com/pingcap/tidb/pkg/parser/ast"
	"github.com/pingcap/tidb/pkg/parser/format"
	_ "github.com/pingcap/tidb/pkg/parser/test_driver" // value expressions for the parser
)

// Split is a table's DDL divided for loading: the base table (primary key and
// any key an AUTO_INCREMENT column needs) and the secondary indexes and
// foreign keys to add after the data.
type Split struct {
	Table  string
	Create string   // CREATE TABLE without post-load indexes
	Full   []string // every statement as given (index timing "before")
	// PostLoad holds one ALTER TABLE per table adding every secondary index
	// and foreign key at once ("" when there is nothing to add).
	PostLoad string
	Indexes  []string // names of the indexes moved out
	// PostSpecs are the ALTER TABLE clauses of PostLoad, one per index, so a
	// resumed load can add only the ones still missing.
	PostSpecs []string
	// Combined is one CREATE TABLE with every index inline: the schema file
	// TiDB Lightning and IMPORT INTO expect.
	Combined string
}

// AlterFor returns one ALTER TABLE adding the post-load indexes not in have
// ("" if none are missing).
func (s *Split) AlterFor(have map[string]bool) string {
	var specs []string
	for i, name := range s.Indexes {
		if !have[strings.ToLower(name)] {
			specs = append(specs, s.PostSpecs[i])
		}
	}
	if len(specs) == 0 {
		return ""
	}
	return "ALTER TABLE " + quoteIdent(s.Table) + " " + strings.Join(specs, ", ")
}

const restoreFlags = format.DefaultRestoreFlags | format.RestoreStringEscapeBackslash | format.RestoreTiDBSpecialComment

// SplitDDL parses a table's DDL (CREATE TABLE, then optional CREATE INDEX
// statements) with the TiDB parser and separates the post-load part.
func SplitDDL(ddl string) (*Split, error) {
	p := parser.New()
	stmts, _, err := p.Parse(ddl, "", "")
	if err != nil {
		return nil, fmt.Errorf("parsing DDL: %w", err)
	}
	s := &Split{}
	var specs []*ast.AlterTableSpec
	var create *ast.CreateTableStmt
	var kept []*ast.Constraint
	for _, st := range stmts {
		txt, err := restore(st)
		if err != nil {
			return nil, err
		}
		s.Full = append(s.Full, txt)
		switch n := st.(type) {
		case *ast.CreateTableStmt:
			if s.Table != "" {
				return nil, fmt.Errorf("DDL holds more than one CREATE TABLE")
			}
			s.Table = n.Table.Name.O
			autoCols := map[string]bool{}
			for _, c := range n.Cols {
				for _, o := range c.Options {
					if o.Tp == ast.ColumnOptionAutoIncrement {
						autoCols[c.Name.Name.L] = true
					}
				}
			}
			hasPK := false
			for _, c := range n.Constraints {
				if c.Tp == ast.ConstraintPrimaryKey {
					hasPK = true
				}
			}
			var keep []*ast.Constraint
			for _, c := range n.Constraints {
				if isPostLoad(c) && !(needsKey(c, autoCols) && !hasPK) {
					specs = append(specs, &ast.AlterTableSpec{Tp: ast.AlterTableAddConstraint, Constraint: c})
					s.Indexes = append(s.Indexes, c.Name)
					continue
				}
				keep = append(keep, c)
			}
			n.Constraints = keep
			if s.Create, err = restore(n); err != nil {
				return nil, err
			}
			create, kept = n, keep
		case *ast.CreateIndexStmt:
			tp := ast.ConstraintIndex
			switch n.KeyType {
			case ast.IndexKeyTypeUnique:
				tp = ast.ConstraintUniqIndex
			case ast.IndexKeyTypeFulltext:
				tp = ast.ConstraintFulltext
			}
			specs = append(specs, &ast.AlterTableSpec{Tp: ast.AlterTableAddConstraint, Constraint: &ast.Constraint{
				Tp: tp, Name: n.IndexName, Keys: n.IndexPartSpecifications, Option: n.IndexOption}})
			s.Indexes = append(s.Indexes, n.IndexName)
		default:
			return nil, fmt.Errorf("unexpected statement in table DDL: %s", txt)
		}
	}
	if s.Table == "" {
		return nil, fmt.Errorf("DDL has no CREATE TABLE")
	}
	if len(specs) > 0 {
		alter := &ast.AlterTableStmt{Table: &ast.TableName{Name: ast.NewCIStr(s.Table)}, Specs: specs}
		if s.PostLoad, err = restore(alter); err != nil {
			return nil, err
		}
		for _, sp := range specs {
			txt, err := restore(sp)
			if err != nil {
				return nil, err
			}
			s.PostSpecs = append(s.PostSpecs, txt)
		}
	}
	all := append([]*ast.Constraint(nil), kept...)
	for _, sp := range specs {
		all = append(all, sp.Constraint)
	}
	create.Constraints = all
	if s.Combined, err = restore(create); err != nil {
		return nil, err
	}
	create.Constraints = kept
	return s, nil
}

func isPostLoad(c *ast.Constraint) bool {
	switch c.Tp {
	case ast.ConstraintKey, ast.ConstraintIndex, ast.ConstraintUniq, ast.ConstraintUniqKey,
		ast.ConstraintUniqIndex, ast.ConstraintFulltext, ast.ConstraintForeignKey:
		return true
	}
	return false
}

// needsKey: MySQL requires an AUTO_INCREMENT column to lead some key.
func needsKey(c *ast.Constraint, autoCols map[string]bool) bool {
	return len(c.Keys) > 0 && c.Keys[0].Column != nil && autoCols[c.Keys[0].Column.Name.L]
}

func restore(n ast.Node) (string, error) {
	var sb strings.Builder
	if err := n.Restore(format.NewRestoreCtx(restoreFlags, &sb)); err != nil {
		return "", err
	}
	return sb.String(), nil
}
