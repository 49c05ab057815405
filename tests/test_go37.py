"""Go values the index missed (session 37; found by the blind suite callgraph_blind8):
an instance of a generic type (``&Stack[int]{}``), ``new(Buffer)``, a struct field named
as the package of its type (``cache *cache.LRU``) or as its type (``router *router``,
cobra's ``CompletionOptions CompletionOptions``), an embedded field read by its name
(``lf.File.Close()``), a local named as a package (``cache := cache.New(2)``). Each
value is read before the name it declares exists, so the name in it is the package or
type (codeindex/namespaces.self_typed). Each line checked by hand; the program builds
with ``go build``."""

from __future__ import annotations

from pathlib import Path

from cgutil import edges
from conftest import make_repo

MAIN = """package main

import "example.com/app/cache"

type Stack[T any] struct{ items []T }

func (s *Stack[T]) Push(v T) { s.items = append(s.items, v) }

type Buffer struct{ n int }

func (b *Buffer) Write(s string) { b.n += len(s) }

type File struct{ name string }

func (f *File) Close() error { return nil }

type router struct{}

func (r *router) handle(p string) {}

type LoggedFile struct {
	File
	router *router
	cache  *cache.LRU
}

func (lf *LoggedFile) Close() error {
	lf.router.handle("/close")
	lf.cache.Put("k")
	return lf.File.Close()
}

func main() {
	s := &Stack[int]{}
	s.Push(1)
	buf := new(Buffer)
	buf.Write("a")
	lf := &LoggedFile{}
	lf.Close()
	cache := cache.New(2)
	cache.Put("x")
}
"""
CACHE = """package cache

type LRU struct{ n int }

func New(n int) *LRU { return &LRU{n: n} }

func (c *LRU) Put(k string) { c.n++ }
"""


def test_go_values_named_by_their_type_or_package(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", {"go.mod": "module example.com/app\n\ngo 1.21\n",
                                      "main.go": MAIN, "cache/cache.go": CACHE})
    got = [e for e in edges(repo) if e.startswith("main.go::")]
    assert got == [
        "main.go::LoggedFile.Close -> cache/cache.go::LRU.Put @29",
        "main.go::LoggedFile.Close -> main.go::File.Close @30",
        "main.go::LoggedFile.Close -> main.go::router.handle @28",
        "main.go::main -> cache/cache.go::LRU.Put @41",
        "main.go::main -> cache/cache.go::New @40",
        "main.go::main -> main.go::Buffer.Write @37",
        "main.go::main -> main.go::LoggedFile.Close @39",
        "main.go::main -> main.go::Stack.Push @35",
    ]
