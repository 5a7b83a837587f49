"""The SSA intermediate representation: values, operations and structured regions.

A `Function` owns one `Block`. A block has parameters, a straight-line list of operations and
the values it yields to its owner. Control flow is structured: `If`, `For` and `While` are
operations that own blocks (regions), and their block parameters and results play the role
of phi nodes. Every value is defined once (SSA) and visible in the block that defines it and
in the blocks nested inside it.

    def f(x, n):                       f(x, n):
        s = 0.0                          %s2 = for %i in range(0, n, 1) carry(%s = 0.0):
        for i in range(n):                   %1 = mul %s, x
            s = s * x + i                    %2 = add %1, %i
        return s                             yield %2
                                         return %s2

Nodes are frozen dataclasses: passes build new functions rather than editing old ones.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

from .types import BOTTOM, UNKNOWN, Opaque, Type, same_object
from .values import of_value


@dataclass(frozen=True, eq=False)
class Var:
    """An SSA value. Identity is the id; `hint` is the user's variable name if any."""

    id: int
    hint: str = ""
    type: Type = UNKNOWN

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Var) and other.id == self.id

    def __hash__(self) -> int:
        return self.id

    def __repr__(self) -> str:
        return f"%{self.hint}{self.id}" if self.hint else f"%{self.id}"


class _Undef:
    """The value of a variable that has not been assigned yet (a loop's first iteration)."""

    _instance = None

    def __new__(cls) -> _Undef:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "undef"

    def __reduce__(self) -> str:
        return "UNDEF"


UNDEF = _Undef()


@dataclass(frozen=True)
class Ext:
    """A reference to an object outside the function (module, function, global dict...).

    `name` is the deterministic name the generated code uses for it; `obj` is the object.
    """

    name: str
    obj: object = field(compare=False, hash=False)

    def __eq__(self, other: object) -> bool:
        # (two objects with one name, mod_a.f and mod_b.f, are two values: an `if` choosing
        # between them must not be folded into one)
        return isinstance(other, Ext) and other.name == self.name and same_object(other.obj, self.obj)

    def __hash__(self) -> int:
        return hash(self.name)

    def __repr__(self) -> str:
        return f"@{self.name}"



@dataclass(frozen=True, eq=False)
class Const:
    """A literal: int, float, bool, str, None, Ellipsis, a slice or tuple of literals, UNDEF
    or an Ext."""

    value: object

    def __eq__(self, other: object) -> bool:
        return (isinstance(other, Const) and type(other.value) is type(self.value)
                and other.value == self.value)

    def __hash__(self) -> int:
        try:
            return hash((type(self.value).__name__, self.value))
        except TypeError:  # slices (before Python 3.12) and tuples holding them
            return hash((type(self.value).__name__, repr(self.value)))

    def __repr__(self) -> str:
        return repr(self.value)


Atom = Var | Const


def ext_object(a) -> object | None:
    """The object an atom refers to (a Const of an Ext), else None."""
    return a.value.obj if isinstance(a, Const) and isinstance(a.value, Ext) else None


def atom_type(a: Atom) -> Type:
    """The type of a value or literal (UNDEF is bottom, external objects are opaque)."""
    if isinstance(a, Var):
        return a.type
    if a.value is UNDEF:
        return BOTTOM
    if isinstance(a.value, Ext):
        return Opaque(a.value.name)
    return of_value(a.value)


@dataclass(frozen=True)
class Loc:
    """A position in the user's source (1-based line, 0-based column)."""

    file: str
    line: int
    col: int = 0
    func: str = ""
    adjoint: bool = False  # emitted by the backward sweep for this line
    # the call sites through which this line was inlined, outermost first (for error messages)
    via: tuple = field(default=(), compare=False, hash=False)

    def __str__(self) -> str:
        return f"{self.file}:{self.line}:{self.col}"


@dataclass(frozen=True)
class Apply:
    """`outs = prim(args, **kw)` for a primitive named in the rule registry.

    `keep`: the operation runs even when nothing reads its results. Set on the user's
    operations that may raise (passes/dce.py mark_kept), since a derivative must raise where
    the function does; operations a transform adds for derivatives do not have it.
    """

    outs: tuple[Var, ...]
    prim: str
    args: tuple[Atom, ...]
    kw: tuple[tuple[str, Atom], ...] = ()
    loc: Loc | None = None
    keep: bool = False

    @property
    def out(self) -> Var:
        return self.outs[0]

    def operands(self) -> tuple[Atom, ...]:
        return self.args + tuple(a for _, a in self.kw)

    def map(self, atom: AtomMap | None = None, block: BlockMap | None = None) -> Apply:
        """This operation with `atom` applied to each operand (every operation has `map`:
        `atom` to its operands, `block` to the blocks it owns, in field order; None leaves
        them as they are). An Apply owns no block, and without `atom` is itself."""
        if atom is None:
            return self
        return replace(self, args=tuple(atom(a) for a in self.args),
                       kw=tuple((k, atom(a)) for k, a in self.kw))


@dataclass(frozen=True)
class Block:
    """A region: parameters, operations, and the values yielded to the owning operation."""

    params: tuple[Var, ...]
    ops: tuple[Op, ...]
    yields: tuple[Atom, ...]


@dataclass(frozen=True)
class If:
    """`outs = then.yields if cond else orelse.yields`."""

    outs: tuple[Var, ...]
    cond: Atom
    then: Block
    orelse: Block
    loc: Loc | None = None

    def operands(self) -> tuple[Atom, ...]:
        return (self.cond,)

    def blocks(self) -> tuple[Block, ...]:
        return (self.then, self.orelse)

    def map(self, atom: AtomMap | None = None, block: BlockMap | None = None) -> If:
        atom, block = atom or _same, block or _same
        return replace(self, cond=atom(self.cond), then=block(self.then), orelse=block(self.orelse))


@dataclass(frozen=True)
class For:
    """`for i in range(start, stop, step)` carrying values.

    body.params = (i, *carried); body.yields = (*carried_next,) and, when `exits` is set, one
    more bool: leave the loop after this iteration (a `break` or `return` happened). `reverse`
    iterates `reversed(range(start, stop, step))`. `outs` are the carried values at the end.
    """

    outs: tuple[Var, ...]
    start: Atom
    stop: Atom
    step: Atom
    init: tuple[Atom, ...]
    body: Block
    exits: bool = False
    reverse: bool = False
    loc: Loc | None = None

    def operands(self) -> tuple[Atom, ...]:
        return (self.start, self.stop, self.step) + self.init

    def blocks(self) -> tuple[Block, ...]:
        return (self.body,)

    def map(self, atom: AtomMap | None = None, block: BlockMap | None = None) -> For:
        atom, block = atom or _same, block or _same
        return replace(self, start=atom(self.start), stop=atom(self.stop), step=atom(self.step),
                       init=tuple(atom(a) for a in self.init), body=block(self.body))


@dataclass(frozen=True)
class While:
    """`while cond(carried): carried = body(carried)`.

    cond.params and body.params are the carried values; cond yields one bool; body yields the
    next carried values and, when `exits` is set, one more bool as in `For`.
    """

    outs: tuple[Var, ...]
    init: tuple[Atom, ...]
    cond: Block
    body: Block
    exits: bool = False
    loc: Loc | None = None

    def operands(self) -> tuple[Atom, ...]:
        return self.init

    def blocks(self) -> tuple[Block, ...]:
        return (self.cond, self.body)

    def map(self, atom: AtomMap | None = None, block: BlockMap | None = None) -> While:
        atom, block = atom or _same, block or _same
        return replace(self, init=tuple(atom(a) for a in self.init), cond=block(self.cond),
                       body=block(self.body))


Op = Apply | If | For | While
REGION_OPS = (If, For, While)
AtomMap = Callable[[Atom], Atom]
BlockMap = Callable[[Block], Block]


def _same(x):
    return x


@dataclass(frozen=True)
class Param:
    """A parameter of the user's function: its name, default and kind ('pos', 'kwonly')."""

    name: str
    default: Atom | None = None
    kind: str = "pos"


@dataclass(frozen=True)
class Function:
    """A function: `body.params` are its arguments, `body.yields` its return values.

    `signature` describes the Python-level parameters (one per body param). `loc` is the
    position of the `def`, `qualname` the user function's qualified name (for messages).
    """

    name: str
    signature: tuple[Param, ...]
    body: Block
    loc: Loc | None = None
    qualname: str = ""
    returns: tuple = ()  # the Locs of the user's `return` statements (for errors about outputs)


def iter_ops(block: Block) -> Iterator[Op]:
    """Every operation of a block and of the blocks nested in it, in program order."""
    for op in block.ops:
        yield op
        if isinstance(op, REGION_OPS):
            for b in op.blocks():
                yield from iter_ops(b)


def iter_blocks(block: Block) -> Iterator[Block]:
    yield block
    for op in block.ops:
        if isinstance(op, REGION_OPS):
            for b in op.blocks():
                yield from iter_blocks(b)


def max_var_id(fn: Function) -> int:
    """The largest Var id used in `fn` (for creating fresh values)."""
    best = -1
    for b in iter_blocks(fn.body):
        for v in b.params:
            best = max(best, v.id)
        for op in b.ops:
            for v in op.outs:
                best = max(best, v.id)
    return best
