"""Objects made inside the function that a loop carries from one iteration to the next, or
that the branches of an if replace (`join_objects`, the same twins at the end of each branch):

    s = State(x0, v0)
    for _ in range(n):
        s = s.step(dt)          # a new State each iteration
    return s.energy()

An object made inside exists only while srcad lowers the code (objects.py): its attributes
are variables. A loop cannot carry the object itself, but it can carry its attributes. Before
the loop, a name bound to such an object, and rebound to another object of the same class in
the loop's body, is bound to a twin: an object of the same class with the same attribute
values. At the end of each iteration, the attributes of the object the name then refers to are
written into the twin's, and the name refers to the twin again, so the loop carries the
attributes as it carries any variable.

This is exact when nothing can tell the twin from the object it replaces: the name is the
object's only reference when the loop starts (no other variable, attribute of another object
or bound method refers to it; `sole_reference`), and the object the name refers to at the end
of an iteration has the same class and the same attributes assigned. Otherwise the loop carries
the object itself, which objects.py refuses (or has made when the code runs) as before.
"""

from __future__ import annotations

import gast

from ..ir.nodes import Const, Ext, ext_object
from .closures import Partial
from .expr import ext_name
from .objects import LocalObject, _attr_key, _class_data, _set_key, local_object, made_at_run_time


def _refers_to(value, atom) -> bool:
    """Does a variable's value refer to the object `atom` (itself, or a method bound to it)?"""
    if value == atom:
        return True
    bound = ext_object(value) if isinstance(value, Const) else None
    return isinstance(bound, Partial) and any(a == atom for a in bound.args)


def sole_reference(builder, key, atom, here_too: bool = True) -> bool:
    """Is the variable `key` the only one (of every open block) that refers to the object?
    With here_too False, variables the innermost block defines do not count: at the end of a
    loop's body or of a branch, they are carried or joined, and one of them that still refers
    to an object made inside is refused where it is used (objects.check_no_local_objects)."""
    return not any(k != key and _refers_to(v, atom) and (here_too or not inner)
                   for k, (v, inner) in builder.bindings().items())


def _names(obj: LocalObject) -> set:
    return obj.attrs | _class_data(obj.cls)


def _flag(builder, obj: LocalObject, attr: str):
    """Whether obj's attribute is assigned here. A twin's are the same in every iteration of
    its loop (rejoin_objects refuses otherwise), so they are read from before the loops that
    carry them unchanged so far."""
    key = _set_key(obj, attr)
    if not builder.is_bound(key):
        return None
    if obj.twin:
        before, _ = builder.invariant(key)
        if before is not None:
            return before
    return builder.read(key)


def _copy_attributes(builder, source: LocalObject, target: LocalObject) -> None:
    for attr in sorted(_names(source)):
        if builder.is_bound(_attr_key(source, attr)):
            builder.write(_attr_key(target, attr), builder.read(_attr_key(source, attr)))
        flag = _flag(builder, source, attr)
        if flag is not None:
            builder.write(_set_key(target, attr), flag)
    target.attrs |= source.attrs


class CarriedObjects:
    """A mixin of FunctionLowerer (lower.py): loops and ifs that replace objects made inside."""

    def assigned_a_choice(self, node) -> bool:
        """`name = a if c else b` is lowered as `if c: name = a` / `else: name = b` (the same
        operations), so that objects the branches make are joined as an if statement's are
        (`p = A(x) if c else A(y)`). Returns whether it was."""
        if not (len(node.targets) == 1 and isinstance(node.targets[0], gast.Name)
                and isinstance(node.value, gast.IfExp)):
            return False
        target, choice = node.targets[0], node.value

        def assign(value):
            return gast.copy_location(gast.Assign(targets=[target], value=value, type_comment=None), value)
        self.stmt_If(gast.copy_location(gast.If(test=choice.test, body=[assign(choice.body)],
                                                orelse=[assign(choice.orelse)]), choice))
        return True

    def carry_objects(self, names) -> list:
        """Before a loop whose body assigns `names`: bind each of them that refers to an object
        made inside (as its only reference) to a twin; returns (key, twin atom, attributes
        assigned, attributes) for `rejoin_objects` at the end of the body. The loop's reads of
        such a name before it is rebound are reads of the twin (the loop does not count it as
        written, loops.py): every iteration ends with the name on the twin, or rejoin_objects
        refuses."""
        entries = []
        for name in sorted(names):
            key = self.key(name)
            if not self.b.is_bound(key):
                continue
            atom = self.read_key(key)  # (an object bound before open loops: itself, closures.py)
            obj = local_object(atom)
            if obj is not None and sole_reference(self.b, key, atom) and _assigned(self.b, obj) is not None:
                entries.append((key, *self._twin(key, obj)))
        return entries

    def rejoin_objects(self, entries, node_loc) -> None:
        """At the end of a loop's body: the object each name refers to now, of the twin's class
        and with the same attributes assigned, gives the twin its attribute values."""
        for key, twin_atom, assigned, attrs in entries:
            if not self._merge_into(key, twin_atom, assigned, attrs):
                twin = local_object(twin_atom)
                raise made_at_run_time(twin, node_loc, f"the {twin.cls.__qualname__} object (made at line "
                                       f"{twin.loc.line if twin.loc else '?'}) is carried by this loop, and "
                                       "an iteration ends with its name referring to something else than "
                                       "an object of its class with the same attributes assigned (or "
                                       "assigns it a new attribute)")

    def join_objects(self, twins, names, made: dict) -> dict:
        """At the end of a branch of an if: a name the branch rebinds to an object of a twin's
        class, with the attributes it had, gives the twin (made before the if, carry_objects)
        its attribute values and refers to it again, so the branches join attributes, not
        objects. A name no twin stands for, bound by the first branch to an object made in it,
        gets one then (`made`, given to the second branch's call): the second branch must end
        with the name on an object of the same class, with the same attributes assigned.
        Anything else is left for the join: an object chosen by the if, refused (or made at
        run time) as before."""
        for key, *twin in twins:
            self._merge_into(key, *twin)
        for name in sorted(names):
            key = self.key(name)
            if key in made:
                self._merge_into(key, *made[key])
                continue
            atom = self.b.read(key) if self.b.is_bound(key) else None
            now = local_object(atom)
            if now is None or now.twin or any(key == k for k, *_ in twins) or _assigned(self.b, now) is None \
                    or not sole_reference(self.b, key, atom, here_too=False):
                continue
            made[key] = self._twin(key, now)
        return made

    def _twin(self, key, obj: LocalObject) -> tuple:
        """Bind the variable `key` to a new twin of obj (its class, its attributes); returns
        (the twin's atom, obj's attributes assigned, obj's attributes)."""
        twin = LocalObject(obj.cls, obj.loc, obj.frozen, set(obj.class_reads), twin=True)
        _copy_attributes(self.b, obj, twin)
        atom = Const(Ext(ext_name(obj.cls), twin))
        self.b.write(key, atom)
        return atom, _assigned(self.b, obj), frozenset(obj.attrs)

    def _merge_into(self, key, twin_atom, assigned, attrs) -> bool:
        """Does the variable `key` end on the twin, with the attributes it had (`attrs`,
        `assigned`)? When it refers to another object of the twin's class with those attributes
        assigned that nothing from before refers to, that object's attributes become the
        twin's and the variable refers to the twin again."""
        atom = self.b.read(key) if self.b.is_bound(key) else None
        twin, now = local_object(twin_atom), local_object(atom)
        if now is twin or twin.attrs != attrs:
            return now is twin and twin.attrs == attrs
        if now is None or now.cls is not twin.cls or _assigned(self.b, now) != assigned \
                or not sole_reference(self.b, key, atom, here_too=False):
            return False
        _copy_attributes(self.b, now, twin)
        self.b.write(key, twin_atom)
        return True


def _assigned(builder, obj: LocalObject) -> frozenset | None:
    """The attributes assigned to obj here, or None when that depends on a path taken."""
    out = set()
    for attr in _names(obj):
        flag = _flag(builder, obj, attr)
        if flag == Const(True):
            out.add(attr)
        elif flag not in (None, Const(False)):
            return None
    return frozenset(out)
