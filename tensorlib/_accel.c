/* tensorlib._accel: the optional compiled half of tensorlib's hot paths.
 *
 * Everything here has a pure-Python twin that is the reference (tensorlib/_accelerator.py names them); the
 * package works, and passes the same tests, without this module. It only removes interpreter work from calls
 * that small tensors pay on every op:
 *
 *   wrap(data)                      -> a new plain Tensor around the ndarray ``data``, unchecked as its twin
 *                                      tensorlib._tensor._wrap is
 *   same_dtype(a, b, ufunc, dtypes[, subclasses[, scalar_dtypes]])
 *                                   -> ``ufunc(a._data, b._data)`` as a new plain Tensor when ``a`` and ``b`` are
 *                                      Tensors (of exactly that class unless ``subclasses``) of one dtype in
 *                                      ``dtypes``, neither requiring grad, and the shapes broadcast; None otherwise
 *                                      (the caller then takes its general path, which raises torch's errors). The
 *                                      operators call it before dispatch (tensorlib._methods), add and mul after.
 *                                      With ``scalar_dtypes``, ``b`` may also be a Python float, or an int within
 *                                      int64, next to an ``a`` of a dtype in that set: ``ufunc(a._data, b)``.
 *   record(node_cls, data, inputs)  -> ``(out, node)``: a new ``node_cls`` node with an edge per input and the
 *                                      Tensor ``out`` around ``data`` whose grad_fn it is (tensorlib.ops._util.record)
 *
 *   default_result(func, ret, cls, args, kwargs)
 *                                   -> the default __torch_function__'s last step (tensorlib._tensor._default_result):
 *                                      its usual case, a fresh plain result that needs no gradient changing class;
 *                                      every other case calls the Python function given to setup_default_result()
 *   dependencies(roots)             -> the engine's _dependencies: edges into each node reachable from ``roots``
 *   commit(pending)                 -> the engine's _commit of gradients into ``.grad`` (tensorlib._autograd.engine)
 *                                      when no entry needs more than its two usual cases; whether it did
 *   sub_scaled(p, g, lr)            -> whether it did ``p -= lr * g`` in one pass (ndarrays of one float type laid
 *                                      out alike, Python number ``lr``), with the bits of NumPy's two passes
 *                                      (tensorlib.optim.sgd: the optimizer's update)
 *   run_all(ready, buffers, deps, retain_graph, pending)
 *                                   -> the backward loop over every reachable node (tensorlib._autograd.engine's
 *                                      _run_all, statement for statement; setup_engine() hands it the names it uses).
 *                                      Two common nodes' backward run here in their usual case (setup_nodes():
 *                                      the sum of everything, and the product by a tensor that needs no gradient);
 *                                      their Python methods are the twins, and run in every other case
 *
 * The Tensor's fields are __slots__ of a Python class: setup() reads their offsets from the class's member
 * descriptors once, so a store is one pointer write, as the interpreter's own slot store is. It touches no
 * NumPy C API (dtypes are compared as the objects ``ndarray.dtype`` returns), so it builds with Python's
 * headers alone and does not depend on NumPy's ABI.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>

typedef struct {
    PyTypeObject *node;     /* tensorlib.autograd.graph.Node: record() is usable once setup_record() ran */
    PyObject *edge;         /* tensorlib._autograd.engine.edge */
    PyObject *no_edge;      /* the shared (None, 0) of inputs that need no gradient */
    Py_ssize_t next_functions, freed, hooks;
} record_state;

typedef struct {
    PyTypeObject *tensor;   /* tensorlib.Tensor */
    PyTypeObject *ndarray;  /* numpy.ndarray */
    PyObject *asarray;      /* numpy.asarray: a ufunc of 0-d arrays returns a NumPy scalar */
    PyObject *str_dtype;
    Py_ssize_t data, size, grad_fn, requires_grad, vc, base, view_version;
} accel_state;

/* One Tensor class per process (the module is imported once, by tensorlib._accelerator). */
static accel_state S;
static record_state R;

#define SLOT(o, off) (*(PyObject **)((char *)(o) + (off)))

/* 1: the attribute ``name`` of ``o`` is true, 0: false, -1: error */
static int
attr_true(PyObject *o, PyObject *name)
{
    PyObject *v = PyObject_GetAttr(o, name);
    if (v == NULL) {
        return -1;
    }
    int r = PyObject_IsTrue(v);
    Py_DECREF(v);
    return r;
}

static int
slot_offset(PyTypeObject *type, const char *name, Py_ssize_t *out)
{
    PyObject *descr = PyDict_GetItemString(type->tp_dict, name);  /* borrowed */
    if (descr == NULL || !Py_IS_TYPE(descr, &PyMemberDescr_Type)) {
        PyErr_Format(PyExc_TypeError, "%s.%s is not a slot", type->tp_name, name);
        return -1;
    }
    PyMemberDef *member = ((PyMemberDescrObject *)descr)->d_member;
    if (member->type != T_OBJECT_EX) {
        PyErr_Format(PyExc_TypeError, "%s.%s is not an object slot", type->tp_name, name);
        return -1;
    }
    *out = member->offset;
    return 0;
}

static PyObject *
setup(PyObject *module, PyObject *args)
{
    PyTypeObject *tensor, *ndarray;
    PyObject *asarray;
    if (!PyArg_ParseTuple(args, "O!O!O:setup", &PyType_Type, &tensor, &PyType_Type, &ndarray, &asarray)) {
        return NULL;
    }
    accel_state s = {0};
    if (slot_offset(tensor, "_data", &s.data) < 0 || slot_offset(tensor, "_size", &s.size) < 0
        || slot_offset(tensor, "_grad_fn", &s.grad_fn) < 0
        || slot_offset(tensor, "_requires_grad", &s.requires_grad) < 0 || slot_offset(tensor, "_vc", &s.vc) < 0
        || slot_offset(tensor, "_base", &s.base) < 0 || slot_offset(tensor, "_view_version", &s.view_version) < 0) {
        return NULL;
    }
    s.str_dtype = PyUnicode_InternFromString("dtype");
    if (s.str_dtype == NULL) {
        return NULL;
    }
    s.tensor = (PyTypeObject *)Py_NewRef(tensor);
    s.ndarray = (PyTypeObject *)Py_NewRef(ndarray);
    s.asarray = Py_NewRef(asarray);
    /* setup() runs once; a second call (tests) swaps the state and releases the old references */
    accel_state old = S;
    S = s;
    Py_XDECREF(old.tensor);
    Py_XDECREF(old.ndarray);
    Py_XDECREF(old.asarray);
    Py_XDECREF(old.str_dtype);
    Py_RETURN_NONE;
}

/* A new plain Tensor around ``data`` (a new reference), with no history, grad requirement, counter or base. */
static PyObject *
new_tensor(PyObject *data)
{
    PyObject *t = S.tensor->tp_alloc(S.tensor, 0);
    if (t == NULL) {
        return NULL;
    }
    SLOT(t, S.data) = Py_NewRef(data);
    SLOT(t, S.size) = Py_NewRef(Py_None);
    SLOT(t, S.grad_fn) = Py_NewRef(Py_None);
    SLOT(t, S.requires_grad) = Py_NewRef(Py_False);
    SLOT(t, S.vc) = Py_NewRef(Py_None);
    SLOT(t, S.base) = Py_NewRef(Py_None);
    SLOT(t, S.view_version) = Py_NewRef(Py_None);
    return t;
}

static int
ready(void)
{
    if (S.tensor == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "tensorlib._accel.setup() has not been called");
        return 0;
    }
    return 1;
}

static PyObject *
wrap(PyObject *module, PyObject *data)
{
    if (!ready()) {
        return NULL;
    }
    return new_tensor(data);
}

static PyObject *call_ufunc(PyObject *ufunc, PyObject *x, PyObject *y);

static PyObject *
same_dtype(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 4 || nargs > 6) {
        PyErr_Format(PyExc_TypeError, "same_dtype() takes 4 to 6 arguments (%zd given)", nargs);
        return NULL;
    }
    if (!ready()) {
        return NULL;
    }
    PyObject *a = args[0], *b = args[1], *ufunc = args[2], *dtypes = args[3];
    PyObject *scalar_dtypes = nargs == 6 && args[5] != Py_None ? args[5] : NULL;
    if (!PyAnySet_Check(dtypes)) {
        PyErr_Format(PyExc_TypeError, "same_dtype(): dtypes must be a set or frozenset, not %.100s",
                     Py_TYPE(dtypes)->tp_name);
        return NULL;
    }
    int subclasses = nargs >= 5 ? PyObject_IsTrue(args[4]) : 0;
    if (subclasses < 0) {
        return NULL;
    }
    if (subclasses ? !PyObject_TypeCheck(a, S.tensor) : !Py_IS_TYPE(a, S.tensor)) {
        Py_RETURN_NONE;
    }
    if (subclasses ? !PyObject_TypeCheck(b, S.tensor) : !Py_IS_TYPE(b, S.tensor)) {
        /* a Python number next to a tensor: a float, or an int that fits int64 (not a bool, which is an int) */
        if (scalar_dtypes == NULL || !(PyFloat_CheckExact(b) || PyLong_CheckExact(b))) {
            Py_RETURN_NONE;
        }
        if (!PyAnySet_Check(scalar_dtypes)) {
            PyErr_Format(PyExc_TypeError, "same_dtype(): scalar_dtypes must be a set or frozenset, not %.100s",
                         Py_TYPE(scalar_dtypes)->tp_name);
            return NULL;
        }
        if (PyLong_CheckExact(b)) {
            int overflow;
            (void)PyLong_AsLongLongAndOverflow(b, &overflow);
            if (overflow) {
                Py_RETURN_NONE;
            }
        }
        PyObject *x = SLOT(a, S.data);
        if (SLOT(a, S.requires_grad) != Py_False || x == NULL) {
            Py_RETURN_NONE;
        }
        PyObject *dx = PyObject_GetAttr(x, S.str_dtype);
        if (dx == NULL) {
            return NULL;
        }
        int usable = PySet_Contains(scalar_dtypes, dx);
        Py_DECREF(dx);
        if (usable <= 0) {
            if (usable < 0) {
                return NULL;
            }
            Py_RETURN_NONE;
        }
        return call_ufunc(ufunc, x, b);
    }
    if (SLOT(a, S.requires_grad) != Py_False || SLOT(b, S.requires_grad) != Py_False) {
        Py_RETURN_NONE;
    }
    PyObject *x = SLOT(a, S.data), *y = SLOT(b, S.data);
    if (x == NULL || y == NULL) {  /* a tensor made by object.__new__ and never initialised */
        Py_RETURN_NONE;
    }
    PyObject *dx = PyObject_GetAttr(x, S.str_dtype);
    if (dx == NULL) {
        return NULL;
    }
    PyObject *dy = PyObject_GetAttr(y, S.str_dtype);
    if (dy == NULL) {
        Py_DECREF(dx);
        return NULL;
    }
    int usable = dx == dy ? PySet_Contains(dtypes, dx) : 0;
    Py_DECREF(dx);
    Py_DECREF(dy);
    if (usable <= 0) {
        if (usable < 0) {
            return NULL;
        }
        Py_RETURN_NONE;
    }
    return call_ufunc(ufunc, x, y);
}

/* ``ufunc(x, y)`` as a new plain Tensor; None when the shapes do not broadcast (NumPy's ValueError). */
static PyObject *
call_ufunc(PyObject *ufunc, PyObject *x, PyObject *y)
{
    PyObject *operands[2] = {x, y};
    PyObject *r = PyObject_Vectorcall(ufunc, operands, 2, NULL);
    if (r == NULL) {
        if (PyErr_ExceptionMatches(PyExc_ValueError)) {  /* shapes that do not broadcast */
            PyErr_Clear();
            Py_RETURN_NONE;
        }
        return NULL;
    }
    if (!Py_IS_TYPE(r, S.ndarray)) {
        Py_SETREF(r, PyObject_CallOneArg(S.asarray, r));
        if (r == NULL) {
            return NULL;
        }
    }
    PyObject *t = new_tensor(r);
    Py_DECREF(r);
    return t;
}

static PyObject *
setup_record(PyObject *module, PyObject *args)
{
    PyTypeObject *node;
    PyObject *edge, *no_edge;
    if (!PyArg_ParseTuple(args, "O!OO!:setup_record", &PyType_Type, &node, &edge, &PyTuple_Type, &no_edge)) {
        return NULL;
    }
    if (!PyCallable_Check(edge)) {
        PyErr_SetString(PyExc_TypeError, "setup_record(): edge must be callable");
        return NULL;
    }
    record_state r = {0};
    if (slot_offset(node, "next_functions", &r.next_functions) < 0 || slot_offset(node, "_freed", &r.freed) < 0
        || slot_offset(node, "_hooks", &r.hooks) < 0) {
        return NULL;
    }
    r.node = (PyTypeObject *)Py_NewRef(node);
    r.edge = Py_NewRef(edge);
    r.no_edge = Py_NewRef(no_edge);
    record_state old = R;
    R = r;
    Py_XDECREF(old.node);
    Py_XDECREF(old.edge);
    Py_XDECREF(old.no_edge);
    Py_RETURN_NONE;
}

/* The edge of one input: edge(t) for a tensor that requires grad, else the shared no-edge (a new reference). */
static PyObject *
input_edge(PyObject *t)
{
    int needs;
    if (PyObject_TypeCheck(t, S.tensor)) {
        PyObject *rg = SLOT(t, S.requires_grad);
        if (rg == NULL) {
            PyErr_SetString(PyExc_AttributeError, "_requires_grad");
            return NULL;
        }
        needs = rg == Py_True ? 1 : rg == Py_False ? 0 : PyObject_IsTrue(rg);
    }
    else {
        /* not laid out as a Tensor, but isinstance() may still say it is one (a __class__ that claims it) */
        needs = PyObject_IsInstance(t, (PyObject *)S.tensor);
        if (needs > 0) {
            PyObject *rg = PyObject_GetAttrString(t, "_requires_grad");
            if (rg == NULL) {
                return NULL;
            }
            needs = PyObject_IsTrue(rg);
            Py_DECREF(rg);
        }
    }
    if (needs < 0) {
        return NULL;
    }
    return needs ? PyObject_CallOneArg(R.edge, t) : Py_NewRef(R.no_edge);
}

static PyObject *
record(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "record() takes 3 arguments (%zd given)", nargs);
        return NULL;
    }
    if (!ready()) {
        return NULL;
    }
    if (R.node == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "tensorlib._accel.setup_record() has not been called");
        return NULL;
    }
    PyObject *cls = args[0], *data = args[1];
    if (!PyType_Check(cls) || !PyType_IsSubtype((PyTypeObject *)cls, R.node)) {
        PyErr_Format(PyExc_TypeError, "record(): node_cls must be a subclass of Node, not %R", cls);
        return NULL;
    }
    PyObject *inputs = PySequence_Fast(args[2], "record(): inputs must be a sequence");
    if (inputs == NULL) {
        return NULL;
    }
    Py_ssize_t n = PySequence_Fast_GET_SIZE(inputs);
    PyObject *edges = PyTuple_New(n);
    if (edges == NULL) {
        Py_DECREF(inputs);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *e = input_edge(PySequence_Fast_GET_ITEM(inputs, i));
        if (e == NULL) {
            Py_DECREF(inputs);
            Py_DECREF(edges);
            return NULL;
        }
        PyTuple_SET_ITEM(edges, i, e);
    }
    Py_DECREF(inputs);
    PyTypeObject *node_type = (PyTypeObject *)cls;
    PyObject *node = node_type->tp_alloc(node_type, 0);
    if (node == NULL) {
        Py_DECREF(edges);
        return NULL;
    }
    SLOT(node, R.next_functions) = edges;  /* the reference made above */
    SLOT(node, R.freed) = Py_NewRef(Py_False);
    SLOT(node, R.hooks) = Py_NewRef(Py_None);
    PyObject *out = new_tensor(data);
    if (out == NULL) {
        Py_DECREF(node);
        return NULL;
    }
    Py_SETREF(SLOT(out, S.grad_fn), Py_NewRef(node));
    Py_SETREF(SLOT(out, S.requires_grad), Py_NewRef(Py_True));
    PyObject *pair = PyTuple_New(2);
    if (pair == NULL) {
        Py_DECREF(out);
        Py_DECREF(node);
        return NULL;
    }
    PyTuple_SET_ITEM(pair, 0, out);
    PyTuple_SET_ITEM(pair, 1, node);
    return pair;
}

/* -- the default __torch_function__'s result ------------------------------------------------------------- */

static PyObject *not_sequences, *no_wrap, *default_result_python, *list_or_tuple, *s_class;

static PyObject *
setup_default_result(PyObject *module, PyObject *args)
{
    PyObject *seq, *nowrap, *python;
    if (!PyArg_ParseTuple(args, "O!O!O:setup_default_result", &PySet_Type, &seq, &PySet_Type, &nowrap, &python)) {
        return NULL;
    }
    if (s_class == NULL) {
        if ((s_class = PyUnicode_InternFromString("__class__")) == NULL
            || (list_or_tuple = PyTuple_Pack(2, (PyObject *)&PyList_Type, (PyObject *)&PyTuple_Type)) == NULL) {
            return NULL;
        }
    }
    Py_XSETREF(not_sequences, Py_NewRef(seq));
    Py_XSETREF(no_wrap, Py_NewRef(nowrap));
    Py_XSETREF(default_result_python, Py_NewRef(python));
    Py_RETURN_NONE;
}

/* 1 when ``ret`` (a fresh plain Tensor) may simply change class: no argument is ``ret`` or a sequence that
 * may hold tensors, no keyword arguments, and ``func`` wraps its results; 0 otherwise; -1 on error. */
static int
simple_result(PyObject *func, PyObject *ret, PyObject *cls, PyObject *args, PyObject *kwargs)
{
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *a = PyTuple_GET_ITEM(args, i);
        if (a == ret) {
            return 0;
        }
        PyObject *tp = (PyObject *)Py_TYPE(a);
        if (tp == cls) {
            continue;
        }
        int known = PySet_Contains(not_sequences, tp);
        if (known != 0) {
            if (known < 0) {
                return -1;
            }
            continue;
        }
        int seq = PyObject_IsInstance(a, list_or_tuple);
        if (seq != 0) {
            return seq < 0 ? -1 : 0;
        }
    }
    if (kwargs != Py_None) {
        int any = PyObject_IsTrue(kwargs);
        if (any != 0) {
            return any < 0 ? -1 : 0;
        }
    }
    int wraps = PySet_Contains(no_wrap, func);
    return wraps < 0 ? -1 : !wraps;
}

static PyObject *
default_result(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_Format(PyExc_TypeError, "default_result() takes 5 arguments (%zd given)", nargs);
        return NULL;
    }
    if (!ready()) {
        return NULL;
    }
    if (default_result_python == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "tensorlib._accel.setup_default_result() has not been called");
        return NULL;
    }
    PyObject *func = args[0], *ret = args[1], *cls = args[2], *call_args = args[3], *kwargs = args[4];
    /* (a result that requires grad is aliased, recording AliasBackward0 as torch's as_subclass: the Python twin) */
    if (Py_IS_TYPE(ret, S.tensor) && cls != (PyObject *)S.tensor && PyTuple_Check(call_args)
        && SLOT(ret, S.requires_grad) != Py_True) {
        int simple = simple_result(func, ret, cls, call_args, kwargs);
        if (simple < 0) {
            return NULL;
        }
        if (simple) {
            if (PyObject_SetAttr(ret, s_class, cls) == 0) {
                return Py_NewRef(ret);
            }
            if (!PyErr_ExceptionMatches(PyExc_TypeError)) {
                return NULL;
            }
            PyErr_Clear();  /* a layout the class cannot change to: the Python twin aliases instead */
        }
    }
    return PyObject_Vectorcall(default_result_python, args, 5, NULL);
}

/* -- the engine's loop ---------------------------------------------------------------------------------- */

typedef struct {
    PyTypeObject *accumulate_grad;
    PyObject *any_thread;       /* anomaly mode's flag object: its ``active`` is read at every node, as in Python */
    PyObject *pre_hooks, *apply, *add;
    PyObject *s_runs_without_grads, *s_num_outputs, *s_hooks, *s_variable, *s_meta, *s_prepare, *s_apply,
        *s_release, *s_next_functions, *s_active, *s_meta_hooks;
    PyObject *none_list;        /* [None], repeated for buffers */
    PyObject *node_apply, *node_release;  /* Node.apply and Node.release: inlined for nodes that keep them */
    PyObject *freed;            /* the marker release() leaves in saved slots */
    PyObject *s_backward, *s_saved_slots, *s_freed_slot;
    PyObject *one;
} engine_state;

static engine_state E;

/* ``*slots[i] = sys.intern(names[i])`` for each of the ``n`` names; -1 on error */
static int
intern_all(const char *const names[], PyObject **const slots[], size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if ((*slots[i] = PyUnicode_InternFromString(names[i])) == NULL) {
            return -1;
        }
    }
    return 0;
}

static PyObject *
setup_engine(PyObject *module, PyObject *args)
{
    PyTypeObject *acc;
    PyObject *any_thread, *pre_hooks, *apply, *add, *node_apply, *node_release, *freed;
    if (!PyArg_ParseTuple(args, "O!OOOOOOO:setup_engine", &PyType_Type, &acc, &any_thread, &pre_hooks, &apply, &add,
                          &node_apply, &node_release, &freed)) {
        return NULL;
    }
    if (E.accumulate_grad == NULL) {
        const char *names[] = {"runs_without_grads", "num_outputs", "_hooks", "_variable", "_meta", "_prepare",
                               "apply", "release", "next_functions", "active", "hooks", "backward",
                               "_saved_slots", "_freed"};
        PyObject **slots[] = {&E.s_runs_without_grads, &E.s_num_outputs, &E.s_hooks, &E.s_variable, &E.s_meta,
                              &E.s_prepare, &E.s_apply, &E.s_release, &E.s_next_functions, &E.s_active,
                              &E.s_meta_hooks, &E.s_backward, &E.s_saved_slots, &E.s_freed_slot};
        if (intern_all(names, slots, sizeof(names) / sizeof(names[0])) < 0) {
            return NULL;
        }
        if ((E.one = PyLong_FromLong(1)) == NULL) {
            return NULL;
        }
        if ((E.none_list = PyList_New(1)) == NULL) {
            return NULL;
        }
        PyList_SET_ITEM(E.none_list, 0, Py_NewRef(Py_None));
    }
    Py_XSETREF(E.accumulate_grad, (PyTypeObject *)Py_NewRef(acc));
    Py_XSETREF(E.any_thread, Py_NewRef(any_thread));
    Py_XSETREF(E.pre_hooks, Py_NewRef(pre_hooks));
    Py_XSETREF(E.apply, Py_NewRef(apply));
    Py_XSETREF(E.add, Py_NewRef(add));
    Py_XSETREF(E.node_apply, Py_NewRef(node_apply));
    Py_XSETREF(E.node_release, Py_NewRef(node_release));
    Py_XSETREF(E.freed, Py_NewRef(freed));
    Py_RETURN_NONE;
}

/* ``*result = d.pop(key, None)`` as a new reference (NULL for None); -1 on error.
 * (PyDict_Pop itself is Python 3.13's.) */
static int
pop_item(PyObject *d, PyObject *key, PyObject **result)
{
    *result = NULL;
    PyObject *value = PyDict_GetItemWithError(d, key);  /* borrowed */
    if (value == NULL) {
        return PyErr_Occurred() ? -1 : 0;
    }
    Py_INCREF(value);
    if (PyDict_DelItem(d, key) < 0) {
        Py_DECREF(value);
        return -1;
    }
    *result = value;
    return 1;
}

/* ``[None] * node.num_outputs`` (a new reference) */
static PyObject *
none_buffer(PyObject *node)
{
    PyObject *n = PyObject_GetAttr(node, E.s_num_outputs);
    if (n == NULL) {
        return NULL;
    }
    PyObject *buf = PyNumber_Multiply(E.none_list, n);
    Py_DECREF(n);
    return buf;
}

/* -- what run_all reads of a node's type, cached ------------------------------------------------------------
 * Every node costs the loop a few attribute lookups on its type (is apply or release overridden, how many outputs,
 * are next_functions and _hooks Node's own slots). They are kept here per type, keyed by the type's version tag:
 * CPython gives a type a new tag whenever it or one of its bases changes, and never reuses one, so an entry whose
 * tag still matches holds facts that are still true (the type pointer is borrowed: a type freed and another made
 * at its address has another tag). */

enum { FAST_NONE, FAST_SUM, FAST_SCALED };

typedef struct {
    PyTypeObject *type;      /* borrowed */
    unsigned int version;    /* the type's tp_version_tag when filled; 0: an empty entry */
    char keeps_apply;        /* type.apply is Node.apply */
    char keeps_release;      /* type.release is Node.release */
    char node_slots;         /* next_functions, _hooks and _freed are Node's slots: read at their offsets */
    char fast;               /* a body below stands in for type.backward (FAST_*) */
    Py_ssize_t num_outputs;  /* -1: read from the instance each time */
    PyObject *saved_slots;   /* type._saved_slots when a tuple of str, NULL: read from the instance */
} type_facts;

#define FACTS_SIZE 64
static type_facts facts_cache[FACTS_SIZE];

typedef struct {
    PyTypeObject *sum;          /* SumBackward0 */
    PyTypeObject *scaled;       /* the MulBackward0 of ``x * other`` with only x needing a gradient */
    PyTypeObject *saved;        /* SavedTensor */
    PyObject *sum_backward, *scaled_backward;  /* their Python backward methods: the bodies below stand in for them */
    PyObject *grad_state;       /* grad mode's thread-local state (``.enabled``) */
    PyObject *empty;            /* numpy.empty */
    Py_ssize_t fill_limit;      /* broadcast.py's _FILL_LIMIT */
    Py_ssize_t sum_shape, scaled_other, scaled_self_meta, saved_tensor, saved_counter, saved_version;
    PyObject *s_enabled, *s_shape, *s_kind;
} nodes_state;

static nodes_state N;

/* ``type.<name>`` (a new reference) */
static PyObject *
type_attr(PyTypeObject *tp, const char *name)
{
    return PyObject_GetAttrString((PyObject *)tp, name);
}

/* the offset of the object slot ``name`` as ``tp``'s instances see it (inherited slots too); -1 with an error */
static Py_ssize_t
member_offset(PyTypeObject *tp, const char *name)
{
    PyObject *descr = type_attr(tp, name);
    if (descr == NULL) {
        return -1;
    }
    Py_ssize_t off = -1;
    if (Py_IS_TYPE(descr, &PyMemberDescr_Type) && ((PyMemberDescrObject *)descr)->d_member->type == T_OBJECT_EX) {
        off = ((PyMemberDescrObject *)descr)->d_member->offset;
    }
    else {
        PyErr_Format(PyExc_TypeError, "%s.%s is not an object slot", tp->tp_name, name);
    }
    Py_DECREF(descr);
    return off;
}

/* 1 when ``type.<name>`` is ``expected``, 0 when not (or missing), -1 on error */
static int
type_attr_is(PyTypeObject *tp, const char *name, PyObject *expected)
{
    if (expected == NULL) {
        return 0;
    }
    PyObject *found = type_attr(tp, name);
    if (found == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError)) {
            return -1;
        }
        PyErr_Clear();
        return 0;
    }
    int same = found == expected;
    Py_DECREF(found);
    return same;
}

/* 1 when ``type.<name>`` is the slot of the same name that Node declares */
static int
node_slot(PyTypeObject *tp, const char *name)
{
    if (R.node == NULL) {
        return 0;
    }
    PyObject *own = PyDict_GetItemString(R.node->tp_dict, name);  /* borrowed */
    return type_attr_is(tp, name, own);
}

/* The facts of ``tp`` (filled into ``*scratch`` when the type has no version tag to key them by); NULL on error */
static const type_facts *
facts_of(PyTypeObject *tp, type_facts *scratch)
{
    type_facts *f = &facts_cache[((uintptr_t)tp >> 4) % FACTS_SIZE];
    if (f->type == tp && f->version != 0 && f->version == tp->tp_version_tag) {
        return f;
    }
    type_facts fresh = {tp, 0, 0, 0, 0, FAST_NONE, -1, NULL};
    int a = type_attr_is(tp, "apply", E.node_apply), r = type_attr_is(tp, "release", E.node_release);
    int h = node_slot(tp, "_hooks"), nf = node_slot(tp, "next_functions"), fr = node_slot(tp, "_freed");
    if (a < 0 || r < 0 || h < 0 || nf < 0 || fr < 0) {
        return NULL;
    }
    fresh.keeps_apply = (char)a;
    fresh.keeps_release = (char)r;
    fresh.node_slots = (char)(h && nf && fr && PyType_IsSubtype(tp, R.node));  /* (the offsets are Node's) */
    if (tp->tp_dictoffset == 0) {  /* no instance __dict__ to hold its own values */
        PyObject *n = type_attr(tp, "num_outputs");
        if (n == NULL) {
            if (!PyErr_ExceptionMatches(PyExc_AttributeError)) {
                return NULL;
            }
            PyErr_Clear();  /* (read from the instance: its error is the loop's) */
        }
        else if (PyLong_CheckExact(n)) {
            fresh.num_outputs = PyLong_AsSsize_t(n);
            if (fresh.num_outputs < 0) {
                PyErr_Clear();
                fresh.num_outputs = -1;
            }
        }
        Py_XDECREF(n);
        PyObject *saved = type_attr(tp, "_saved_slots");
        if (saved == NULL) {
            PyErr_Clear();  /* (release() reads it only for nodes that keep Node.release) */
        }
        else if (PyTuple_CheckExact(saved)) {
            int names = 1;
            for (Py_ssize_t i = 0; names && i < PyTuple_GET_SIZE(saved); i++) {
                names = PyUnicode_CheckExact(PyTuple_GET_ITEM(saved, i));
            }
            fresh.saved_slots = names ? Py_NewRef(saved) : NULL;
        }
        Py_XDECREF(saved);
    }
    if (a && fresh.node_slots && (tp == N.sum || tp == N.scaled)) {
        int same = type_attr_is(tp, "backward", tp == N.sum ? N.sum_backward : N.scaled_backward);
        if (same < 0) {
            Py_XDECREF(fresh.saved_slots);
            return NULL;
        }
        fresh.fast = !same ? FAST_NONE : tp == N.sum ? FAST_SUM : FAST_SCALED;
    }
    fresh.version = tp->tp_version_tag;  /* (the lookups above gave the type a tag if it had none) */
    if (fresh.version == 0) {  /* nothing to key the facts by: used once, holding no reference */
        Py_CLEAR(fresh.saved_slots);
        *scratch = fresh;
        return scratch;
    }
    Py_XDECREF(f->saved_slots);
    *f = fresh;
    return f;
}

/* ``getattr(o, name)`` for a slot read at ``offset`` when ``direct`` (a new reference; AttributeError when unset) */
static PyObject *
read_slot(PyObject *o, Py_ssize_t offset, int direct, PyObject *name)
{
    if (direct) {
        PyObject *v = SLOT(o, offset);
        if (v != NULL) {
            return Py_NewRef(v);
        }
    }
    return PyObject_GetAttr(o, name);
}

/* the ``kind`` letter of ``a.dtype`` (0 when it is not a one-letter str), -1 on error */
static int
dtype_kind(PyObject *a)
{
    PyObject *dtype = PyObject_GetAttr(a, S.str_dtype);
    if (dtype == NULL) {
        return -1;
    }
    PyObject *kind = PyObject_GetAttr(dtype, N.s_kind);
    Py_DECREF(dtype);
    if (kind == NULL) {
        return -1;
    }
    int k = 0;
    if (PyUnicode_Check(kind) && PyUnicode_GET_LENGTH(kind) == 1) {
        k = (int)PyUnicode_READ_CHAR(kind, 0);
    }
    Py_DECREF(kind);
    return k;
}

/* SumBackward0.backward's first case (tensorlib.ops.broadcast._expand_back): a 0-d gradient that needs none,
 * the input's shape, of at most _FILL_LIMIT elements, filled with it. A new ``(gradient,)`` tuple; NULL with no
 * error set when the case does not apply (the Python method then runs). */
static PyObject *
sum_backward(PyObject *node, PyObject *g)
{
    if (!Py_IS_TYPE(g, S.tensor) || SLOT(g, S.requires_grad) != Py_False) {
        return NULL;
    }
    PyObject *a = SLOT(g, S.data), *shape = SLOT(node, N.sum_shape);
    if (!Py_IS_TYPE(a, S.ndarray) || shape == NULL || !PyTuple_CheckExact(shape) || PyTuple_GET_SIZE(shape) == 0) {
        return NULL;
    }
    Py_ssize_t count = 1;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(shape); i++) {
        PyObject *d = PyTuple_GET_ITEM(shape, i);
        Py_ssize_t n = PyLong_CheckExact(d) ? PyLong_AsSsize_t(d) : -1;
        if (n < 0) {
            PyErr_Clear();
            return NULL;
        }
        if (n == 0) {
            count = 0;
        }
        else if (count > 0) {
            count = count > N.fill_limit / n ? N.fill_limit + 1 : count * n;
        }
    }
    if (count > N.fill_limit) {
        return NULL;
    }
    PyObject *gshape = PyObject_GetAttr(a, N.s_shape);
    if (gshape == NULL) {
        return NULL;
    }
    int scalar = PyTuple_CheckExact(gshape) && PyTuple_GET_SIZE(gshape) == 0;
    Py_DECREF(gshape);
    if (!scalar) {
        return NULL;
    }
    PyObject *dtype = PyObject_GetAttr(a, S.str_dtype);
    if (dtype == NULL) {
        return NULL;
    }
    PyObject *call[2] = {shape, dtype};
    PyObject *filled = PyObject_Vectorcall(N.empty, call, 2, NULL);
    Py_DECREF(dtype);
    if (filled == NULL) {
        return NULL;
    }
    PyObject *out = NULL;
    if (PyObject_SetItem(filled, Py_Ellipsis, a) == 0) {
        PyObject *t = new_tensor(filled);
        if (t != NULL) {
            out = PyTuple_Pack(1, t);
            Py_DECREF(t);
        }
    }
    Py_DECREF(filled);
    return out;
}

/* _ScaledBackward.backward's first case (tensorlib.ops.arithmetic): ``g * other`` on the arrays, nothing recorded,
 * a real floating gradient, a real saved operand unchanged since, a result of the input's shape and dtype. A new
 * ``(gradient, None)`` tuple; NULL with no error set when the case does not apply (the Python method then runs). */
static PyObject *
scaled_backward(PyObject *node, PyObject *g)
{
    if (!Py_IS_TYPE(g, S.tensor) || SLOT(node, R.freed) != Py_False) {
        return NULL;
    }
    PyObject *saved = SLOT(node, N.scaled_other), *meta = SLOT(node, N.scaled_self_meta);
    if (saved == NULL || !Py_IS_TYPE(saved, N.saved) || meta == NULL || !PyTuple_CheckExact(meta)
        || PyTuple_GET_SIZE(meta) != 2) {
        return NULL;
    }
    PyObject *held = SLOT(saved, N.saved_tensor), *counter = SLOT(saved, N.saved_counter);
    PyObject *version = SLOT(saved, N.saved_version);
    if (held == NULL || !PyObject_TypeCheck(held, S.tensor) || counter == NULL || !PyList_CheckExact(counter)
        || PyList_GET_SIZE(counter) < 1 || version == NULL) {
        return NULL;
    }
    int recording = attr_true(N.grad_state, N.s_enabled);
    if (recording != 0) {
        return NULL;  /* (an error stays set) */
    }
    PyObject *now = Py_NewRef(PyList_GET_ITEM(counter, 0));
    int unchanged = PyObject_RichCompareBool(now, version, Py_EQ);
    Py_DECREF(now);
    if (unchanged != 1) {
        return NULL;
    }
    PyObject *gd = SLOT(g, S.data), *od = SLOT(held, S.data);
    int gk = dtype_kind(gd);
    if (gk != 'f') {
        return NULL;
    }
    int ok = dtype_kind(od);
    if (ok < 0 || ok == 'c') {
        return NULL;
    }
    PyObject *r = PyNumber_Multiply(gd, od);
    if (r == NULL) {
        return NULL;
    }
    PyObject *out = NULL;
    if (Py_IS_TYPE(r, S.ndarray)) {
        PyObject *shape = PyObject_GetAttr(r, N.s_shape);
        PyObject *dtype = shape == NULL ? NULL : PyObject_GetAttr(r, S.str_dtype);
        int same = dtype == NULL ? -1 : PyObject_RichCompareBool(shape, PyTuple_GET_ITEM(meta, 0), Py_EQ);
        if (same == 1) {
            same = PyObject_RichCompareBool(dtype, PyTuple_GET_ITEM(meta, 1), Py_EQ);
        }
        Py_XDECREF(shape);
        Py_XDECREF(dtype);
        if (same == 1) {
            PyObject *t = new_tensor(r);
            if (t != NULL) {
                out = PyTuple_Pack(2, t, Py_None);
                Py_DECREF(t);
            }
        }
    }
    Py_DECREF(r);
    return out;
}

/* compiled_backward(node, g): what run_all computes in C for ``node.apply([g])`` (a tuple), or None when the node
 * is not one of the common nodes, or their case does not apply (run_all then calls the Python method) */
static PyObject *
compiled_backward(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "compiled_backward() takes 2 arguments (%zd given)", nargs);
        return NULL;
    }
    if (N.sum == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "tensorlib._accel.setup_nodes() has not been called");
        return NULL;
    }
    type_facts scratch;
    const type_facts *f = facts_of(Py_TYPE(args[0]), &scratch);
    if (f == NULL) {
        return NULL;
    }
    PyObject *outs = f->fast == FAST_SUM ? sum_backward(args[0], args[1])
                   : f->fast == FAST_SCALED ? scaled_backward(args[0], args[1]) : NULL;
    if (outs == NULL && !PyErr_Occurred()) {
        Py_RETURN_NONE;
    }
    return outs;
}

static PyObject *
setup_nodes(PyObject *module, PyObject *args)
{
    PyTypeObject *sum, *scaled, *saved;
    PyObject *grad_state, *empty;
    Py_ssize_t fill_limit;
    if (!PyArg_ParseTuple(args, "O!O!O!OOn:setup_nodes", &PyType_Type, &sum, &PyType_Type, &scaled, &PyType_Type,
                          &saved, &grad_state, &empty, &fill_limit)) {
        return NULL;
    }
    if (R.node == NULL || E.accumulate_grad == NULL || !ready()) {
        PyErr_SetString(PyExc_RuntimeError, "setup_nodes() needs setup(), setup_record() and setup_engine() first");
        return NULL;
    }
    if (N.s_enabled == NULL) {
        const char *names[] = {"enabled", "shape", "kind"};
        PyObject **slots[] = {&N.s_enabled, &N.s_shape, &N.s_kind};
        if (intern_all(names, slots, sizeof(names) / sizeof(names[0])) < 0) {
            return NULL;
        }
    }
    nodes_state n = N;
    if ((n.sum_shape = member_offset(sum, "shape")) < 0 || (n.scaled_other = member_offset(scaled, "other")) < 0
        || (n.scaled_self_meta = member_offset(scaled, "self_meta")) < 0
        || (n.saved_tensor = member_offset(saved, "tensor")) < 0
        || (n.saved_counter = member_offset(saved, "counter")) < 0
        || (n.saved_version = member_offset(saved, "version")) < 0) {
        return NULL;
    }
    PyObject *sb = type_attr(sum, "backward"), *cb = sb == NULL ? NULL : type_attr(scaled, "backward");
    if (cb == NULL) {
        Py_XDECREF(sb);
        return NULL;
    }
    n.fill_limit = fill_limit;
    Py_XSETREF(N.sum_backward, sb);
    Py_XSETREF(N.scaled_backward, cb);
    Py_XSETREF(N.sum, (PyTypeObject *)Py_NewRef(sum));
    Py_XSETREF(N.scaled, (PyTypeObject *)Py_NewRef(scaled));
    Py_XSETREF(N.saved, (PyTypeObject *)Py_NewRef(saved));
    Py_XSETREF(N.grad_state, Py_NewRef(grad_state));
    Py_XSETREF(N.empty, Py_NewRef(empty));
    n.sum_backward = N.sum_backward;
    n.scaled_backward = N.scaled_backward;
    n.sum = N.sum;
    n.scaled = N.scaled;
    n.saved = N.saved;
    n.grad_state = N.grad_state;
    n.empty = N.empty;
    N = n;
    for (size_t i = 0; i < FACTS_SIZE; i++) {  /* facts naming the old fast types are void */
        Py_CLEAR(facts_cache[i].saved_slots);
        facts_cache[i].version = 0;
    }
    Py_RETURN_NONE;
}

/* The step of an AccumulateGrad node reached with ``grads``: a pending entry for its leaf; 0 on success. */
static int
leaf_step(PyObject *node, PyObject *grads, PyObject *pending)
{
    int rc = -1;
    PyObject *var = NULL, *g = NULL, *meta = NULL, *entry = NULL;
    PyObject *ref = PyObject_GetAttr(node, E.s_variable);
    if (ref == NULL) {
        return -1;
    }
    var = PyObject_CallNoArgs(ref);
    Py_DECREF(ref);
    if (var == NULL) {
        goto done;
    }
    g = PySequence_GetItem(grads, 0);
    if (g == NULL) {
        goto done;
    }
    if (g == Py_None || var == Py_None) {
        rc = 0;
        goto done;
    }
    meta = PyObject_GetAttr(var, E.s_meta);
    if (meta == NULL) {
        goto done;
    }
    int general = meta == Py_None ? 1 : attr_true(meta, E.s_meta_hooks);
    if (general < 0) {
        goto done;
    }
    if (general) {  /* node._prepare(grads): hooks, or a leaf without metadata yet */
        entry = PyObject_CallMethodOneArg(node, E.s_prepare, grads);
        if (entry == NULL) {
            goto done;
        }
        rc = entry == Py_None ? 0 : PyList_Append(pending, entry);
    }
    else {
        entry = PyTuple_Pack(3, var, g, meta);
        rc = entry == NULL ? -1 : PyList_Append(pending, entry);
    }
done:
    Py_XDECREF(var);
    Py_XDECREF(g);
    Py_XDECREF(meta);
    Py_XDECREF(entry);
    return rc;
}

/* ``node.apply(grads)``; Node.apply itself is ``self.backward(grads[0])``, called here without its frame, and
 * for the common nodes by the bodies above when their case applies */
static PyObject *
call_apply(PyObject *node, PyObject *grads, const type_facts *f)
{
    if (!f->keeps_apply) {
        return PyObject_CallMethodOneArg(node, E.s_apply, grads);
    }
    PyObject *g = PySequence_GetItem(grads, 0);
    if (g == NULL) {
        return NULL;
    }
    PyObject *outs = NULL;
    if (f->fast == FAST_SUM) {
        outs = sum_backward(node, g);
    }
    else if (f->fast == FAST_SCALED) {
        outs = scaled_backward(node, g);
    }
    if (outs == NULL && !PyErr_Occurred()) {
        outs = PyObject_CallMethodOneArg(node, E.s_backward, g);
    }
    Py_DECREF(g);
    return outs;
}

/* ``node.release()``; Node.release itself (mark freed, replace each saved value by the FREED marker) inlined */
static int
release(PyObject *node, const type_facts *f)
{
    if (!f->keeps_release) {
        PyObject *r = PyObject_CallMethodNoArgs(node, E.s_release);
        Py_XDECREF(r);
        return r == NULL ? -1 : 0;
    }
    if (f->node_slots) {
        Py_XSETREF(SLOT(node, R.freed), Py_NewRef(Py_True));
    }
    else if (PyObject_SetAttr(node, E.s_freed_slot, Py_True) < 0) {
        return -1;
    }
    PyObject *seq;
    if (f->saved_slots != NULL) {
        seq = Py_NewRef(f->saved_slots);
    }
    else {
        PyObject *names = PyObject_GetAttr(node, E.s_saved_slots);
        if (names == NULL) {
            return -1;
        }
        seq = PySequence_Fast(names, "_saved_slots must be a sequence");
        Py_DECREF(names);
        if (seq == NULL) {
            return -1;
        }
    }
    int rc = 0;
    Py_ssize_t n = PySequence_Fast_GET_SIZE(seq);
    for (Py_ssize_t i = 0; i < n && rc == 0; i++) {
        PyObject *name = PySequence_Fast_GET_ITEM(seq, i);
        PyObject *value = PyObject_GetAttr(node, name);  /* getattr(self, slot, None) */
        if (value == NULL) {
            if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
                PyErr_Clear();
            }
            else {
                rc = -1;
            }
            continue;
        }
        if (value != Py_None) {
            rc = PyObject_SetAttr(node, name, E.freed);
        }
        Py_DECREF(value);
    }
    Py_DECREF(seq);
    return rc;
}

/* ``outs = node.apply(grads)``, or the general ``_apply`` with hooks or anomaly mode; then the release. */
static PyObject *
apply_step(PyObject *node, PyObject *grads, PyObject *hooks, int retain_graph, const type_facts *f)
{
    PyObject *outs;
    int anomaly = 0;
    if (hooks == Py_None && (anomaly = attr_true(E.any_thread, E.s_active)) < 0) {
        return NULL;
    }
    if (hooks == Py_None && !anomaly) {
        outs = call_apply(node, grads, f);
    }
    else {
        PyObject *call[3] = {node, grads, hooks};
        outs = PyObject_Vectorcall(E.apply, call, 3, NULL);
    }
    if (outs == NULL) {
        return NULL;
    }
    if (!retain_graph && release(node, f) < 0) {
        Py_DECREF(outs);
        return NULL;
    }
    return outs;
}

/* Hand ``g`` (or nothing, when ``g`` is NULL) along the edge ``(nxt, nr)``, and count the edge as done. */
static int
edge_step(PyObject *nxt, PyObject *nr, PyObject *g, PyObject *buffers, PyObject *deps, PyObject *ready)
{
    if (g != NULL && g != Py_None) {
        PyObject *buf = PyDict_GetItemWithError(buffers, nxt);  /* borrowed */
        if (buf == NULL) {
            if (PyErr_Occurred()) {
                return -1;
            }
            type_facts scratch;
            const type_facts *f = facts_of(Py_TYPE(nxt), &scratch);
            if (f == NULL) {
                return -1;
            }
            int one = f->num_outputs == 1;
            if (f->num_outputs < 0) {
                PyObject *n = PyObject_GetAttr(nxt, E.s_num_outputs);
                if (n == NULL) {
                    return -1;
                }
                one = PyLong_CheckExact(n) && PyLong_AsLong(n) == 1;
                Py_DECREF(n);
            }
            if (one) {
                PyObject *fresh = PyList_New(1);
                if (fresh == NULL) {
                    return -1;
                }
                PyList_SET_ITEM(fresh, 0, Py_NewRef(g));
                int rc = PyDict_SetItem(buffers, nxt, fresh);
                Py_DECREF(fresh);
                if (rc < 0) {
                    return -1;
                }
            }
            else {
                PyObject *fresh = none_buffer(nxt);
                if (fresh == NULL) {
                    return -1;
                }
                int rc = PyDict_SetItem(buffers, nxt, fresh);
                if (rc == 0) {
                    rc = PyObject_SetItem(fresh, nr, g);
                }
                Py_DECREF(fresh);
                if (rc < 0) {
                    return -1;
                }
            }
        }
        else {
            Py_INCREF(buf);
            PyObject *old = PyObject_GetItem(buf, nr);
            int rc = -1;
            if (old != NULL) {
                if (old == Py_None) {
                    rc = PyObject_SetItem(buf, nr, g);
                }
                else {
                    PyObject *pair[2] = {old, g};
                    PyObject *sum = PyObject_Vectorcall(E.add, pair, 2, NULL);
                    if (sum != NULL) {
                        rc = PyObject_SetItem(buf, nr, sum);
                        Py_DECREF(sum);
                    }
                }
                Py_DECREF(old);
            }
            Py_DECREF(buf);
            if (rc < 0) {
                return -1;
            }
        }
    }
    PyObject *d = PyDict_GetItemWithError(deps, nxt);  /* borrowed */
    if (d == NULL) {
        if (!PyErr_Occurred()) {
            PyErr_SetObject(PyExc_KeyError, nxt);
        }
        return -1;
    }
    Py_ssize_t left = PyLong_AsSsize_t(d);
    if (left == -1 && PyErr_Occurred()) {
        return -1;
    }
    left -= 1;
    PyObject *now = PyLong_FromSsize_t(left);
    if (now == NULL) {
        return -1;
    }
    int rc = PyDict_SetItem(deps, nxt, now);
    Py_DECREF(now);
    if (rc < 0) {
        return -1;
    }
    return left == 0 ? PyList_Append(ready, nxt) : 0;
}

/* One node of the loop: run it on its buffered gradients and pass its outputs along its edges. */
static int
node_step(PyObject *node, PyObject *buffers, PyObject *deps, int retain_graph, PyObject *pending, PyObject *ready)
{
    int rc = -1;
    PyObject *grads = NULL, *outs = NULL, *hooks = NULL, *edges = NULL;
    /* a copy: user code run below (hooks, backward) may refill the cache's entry */
    type_facts facts;
    const type_facts *cached = facts_of(Py_TYPE(node), &facts);
    if (cached == NULL) {
        return -1;
    }
    facts = *cached;
    Py_XINCREF(facts.saved_slots);
    /* grads = buffers.pop(node, None) */
    if (pop_item(buffers, node, &grads) < 0) {
        goto done;
    }
    if (grads == NULL) {
        int runs = attr_true(node, E.s_runs_without_grads);
        if (runs < 0) {
            goto done;
        }
        if (runs && (grads = none_buffer(node)) == NULL) {
            goto done;
        }
    }
    if (grads != NULL) {
        hooks = read_slot(node, R.hooks, facts.node_slots, E.s_hooks);
        if (hooks == NULL) {
            goto done;
        }
        if (hooks != Py_None) {
            PyObject *call[4] = {node, hooks, grads, pending};
            Py_SETREF(grads, PyObject_Vectorcall(E.pre_hooks, call, 4, NULL));
            if (grads == NULL) {
                goto done;
            }
        }
        if (Py_IS_TYPE(node, E.accumulate_grad)) {
            /* a leaf: no edges to follow and nothing saved to release (its node outlives the graph) */
            rc = leaf_step(node, grads, pending);
            goto done;
        }
        outs = apply_step(node, grads, hooks, retain_graph, &facts);
        if (outs == NULL) {
            goto done;
        }
    }
    else {
        outs = PyTuple_New(0);
        if (outs == NULL) {
            goto done;
        }
    }
    Py_ssize_t n_outs = PyObject_Length(outs);
    if (n_outs < 0) {
        goto done;
    }
    PyObject *next = read_slot(node, R.next_functions, facts.node_slots, E.s_next_functions);
    if (next == NULL) {
        goto done;
    }
    edges = PySequence_Fast(next, "next_functions must be a sequence");
    Py_DECREF(next);
    if (edges == NULL) {
        goto done;
    }
    Py_ssize_t n_edges = PySequence_Fast_GET_SIZE(edges);
    for (Py_ssize_t i = 0; i < n_edges; i++) {
        PyObject *e = PySequence_Fast_GET_ITEM(edges, i);
        if (!PyTuple_Check(e) || PyTuple_GET_SIZE(e) != 2) {
            PyErr_SetString(PyExc_ValueError, "an edge of next_functions is not a (node, output_nr) pair");
            goto done;
        }
        PyObject *nxt = PyTuple_GET_ITEM(e, 0);
        if (nxt == Py_None) {
            continue;
        }
        Py_INCREF(nxt);  /* kept alive while gradients move along it, whatever the callbacks do */
        PyObject *nr = Py_NewRef(PyTuple_GET_ITEM(e, 1));
        PyObject *g = NULL;
        int step = 0;
        if (i < n_outs) {
            g = PySequence_GetItem(outs, i);
            step = g == NULL ? -1 : 0;
        }
        if (step == 0) {
            step = edge_step(nxt, nr, g, buffers, deps, ready);
        }
        Py_XDECREF(g);
        Py_DECREF(nr);
        Py_DECREF(nxt);
        if (step < 0) {
            goto done;
        }
    }
    rc = 0;
done:
    Py_XDECREF(grads);
    Py_XDECREF(outs);
    Py_XDECREF(hooks);
    Py_XDECREF(edges);
    Py_XDECREF(facts.saved_slots);
    return rc;
}

/* ``deps[nxt] = deps.get(nxt, 0) + 1``; *first is set when nxt was not there yet */
static int
count_edge(PyObject *deps, PyObject *nxt, int *first)
{
    PyObject *d = PyDict_GetItemWithError(deps, nxt);  /* borrowed */
    *first = d == NULL;
    if (d == NULL) {
        return PyErr_Occurred() ? -1 : PyDict_SetItem(deps, nxt, E.one);
    }
    PyObject *more = PyNumber_Add(d, E.one);
    if (more == NULL) {
        return -1;
    }
    int rc = PyDict_SetItem(deps, nxt, more);
    Py_DECREF(more);
    return rc;
}

static PyObject *
dependencies(PyObject *module, PyObject *roots)
{
    if (E.accumulate_grad == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "tensorlib._accel.setup_engine() has not been called");
        return NULL;
    }
    PyObject *list = PySequence_List(roots);
    if (list == NULL) {
        return NULL;
    }
    PyObject *deps = NULL, *stack = NULL, *also_roots = NULL;
    if (PyList_GET_SIZE(list) > 1) {
        /* list(dict.fromkeys(roots)): each root once, in order */
        PyObject *unique = PyDict_New();
        if (unique == NULL) {
            goto fail;
        }
        stack = PyList_New(0);
        for (Py_ssize_t i = 0; stack != NULL && i < PyList_GET_SIZE(list); i++) {
            PyObject *r = PyList_GET_ITEM(list, i);
            int there = PyDict_Contains(unique, r);
            if (there < 0 || (!there && (PyDict_SetItem(unique, r, Py_None) < 0 || PyList_Append(stack, r) < 0))) {
                Py_CLEAR(stack);
            }
        }
        Py_DECREF(unique);
        if (stack == NULL) {
            goto fail;
        }
        if (PyList_GET_SIZE(stack) > 1 && (also_roots = PySet_New(stack)) == NULL) {
            goto fail;
        }
    }
    else {
        stack = Py_NewRef(list);
    }
    if ((deps = PyDict_New()) == NULL) {
        goto fail;
    }
    while (PyList_GET_SIZE(stack) > 0) {
        Py_ssize_t last = PyList_GET_SIZE(stack) - 1;
        PyObject *node = Py_NewRef(PyList_GET_ITEM(stack, last));
        if (PyList_SetSlice(stack, last, last + 1, NULL) < 0) {
            Py_DECREF(node);
            goto fail;
        }
        PyObject *next = PyObject_GetAttr(node, E.s_next_functions);
        Py_DECREF(node);
        if (next == NULL) {
            goto fail;
        }
        PyObject *edges = PySequence_Fast(next, "next_functions must be a sequence");
        Py_DECREF(next);
        if (edges == NULL) {
            goto fail;
        }
        int rc = 0;
        for (Py_ssize_t i = 0; rc == 0 && i < PySequence_Fast_GET_SIZE(edges); i++) {
            PyObject *e = PySequence_Fast_GET_ITEM(edges, i);
            if (!PyTuple_Check(e) || PyTuple_GET_SIZE(e) != 2) {
                PyErr_SetString(PyExc_ValueError, "an edge of next_functions is not a (node, output_nr) pair");
                rc = -1;
                break;
            }
            PyObject *nxt = PyTuple_GET_ITEM(e, 0);
            if (nxt == Py_None) {
                continue;
            }
            int first;
            rc = count_edge(deps, nxt, &first);
            if (rc == 0 && first) {
                int root = also_roots == NULL ? 0 : PySet_Contains(also_roots, nxt);
                rc = root < 0 ? -1 : root ? 0 : PyList_Append(stack, nxt);
            }
        }
        Py_DECREF(edges);
        if (rc < 0) {
            goto fail;
        }
    }
    Py_DECREF(list);
    Py_DECREF(stack);
    Py_XDECREF(also_roots);
    return deps;
fail:
    Py_DECREF(list);
    Py_XDECREF(stack);
    Py_XDECREF(also_roots);
    Py_XDECREF(deps);
    return NULL;
}

static PyObject *
run_all(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 5) {
        PyErr_Format(PyExc_TypeError, "run_all() takes 5 arguments (%zd given)", nargs);
        return NULL;
    }
    if (E.accumulate_grad == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "tensorlib._accel.setup_engine() has not been called");
        return NULL;
    }
    PyObject *ready = args[0], *buffers = args[1], *deps = args[2], *pending = args[4];
    if (!PyList_Check(ready) || !PyDict_Check(buffers) || !PyDict_Check(deps) || !PyList_Check(pending)) {
        PyErr_SetString(PyExc_TypeError, "run_all(): ready and pending must be lists, buffers and deps dicts");
        return NULL;
    }
    int retain_graph = PyObject_IsTrue(args[3]);
    if (retain_graph < 0) {
        return NULL;
    }
    while (PyList_GET_SIZE(ready) > 0) {
        /* node = ready.pop() */
        Py_ssize_t last = PyList_GET_SIZE(ready) - 1;
        PyObject *node = Py_NewRef(PyList_GET_ITEM(ready, last));
        if (PyList_SetSlice(ready, last, last + 1, NULL) < 0) {
            Py_DECREF(node);
            return NULL;
        }
        int rc = node_step(node, buffers, deps, retain_graph, pending, ready);
        Py_DECREF(node);
        if (rc < 0) {
            return NULL;
        }
    }
    Py_RETURN_NONE;
}

/* -- the engine's commit: gradients into ``.grad`` ------------------------------------------------------------- */

typedef struct {
    PyObject *lock;             /* the engine's _ACCUMULATE_LOCK */
    PyObject *acquire, *release;  /* its bound methods (a lookup less per commit) */
    PyObject *add;              /* numpy.add */
    PyObject *same_dtype;       /* the marker of a gradient that takes its tensor's dtype (tensorlib._tensor) */
    PyObject *accumulate;       /* the engine's _accumulate(var, meta, g): every case but the two below */
    PyObject *s_grad, *s_post_acc_hooks, *s_grad_dtype, *s_base, *s_acquire, *s_release;
} commit_state;

static commit_state C;

static PyObject *
setup_commit(PyObject *module, PyObject *args)
{
    PyObject *lock, *add, *same_dtype, *accumulate;
    if (!PyArg_ParseTuple(args, "OOOO:setup_commit", &lock, &add, &same_dtype, &accumulate)) {
        return NULL;
    }
    if (C.s_grad == NULL) {
        const char *names[] = {"grad", "post_acc_hooks", "grad_dtype", "base", "acquire", "release"};
        PyObject **slots[] = {&C.s_grad, &C.s_post_acc_hooks, &C.s_grad_dtype, &C.s_base, &C.s_acquire,
                              &C.s_release};
        if (intern_all(names, slots, sizeof(names) / sizeof(names[0])) < 0) {
            return NULL;
        }
    }
    PyObject *acquire = PyObject_GetAttr(lock, C.s_acquire);
    PyObject *release = acquire == NULL ? NULL : PyObject_GetAttr(lock, C.s_release);
    if (release == NULL) {
        Py_XDECREF(acquire);
        return NULL;
    }
    Py_XSETREF(C.acquire, acquire);
    Py_XSETREF(C.release, release);
    Py_XSETREF(C.lock, Py_NewRef(lock));
    Py_XSETREF(C.add, Py_NewRef(add));
    Py_XSETREF(C.same_dtype, Py_NewRef(same_dtype));
    Py_XSETREF(C.accumulate, Py_NewRef(accumulate));
    Py_RETURN_NONE;
}

/* 1 when the two buffers have one item type and one shape (and, with ``strides``, one layout), else 0 */
static int
same_layout(const Py_buffer *a, const Py_buffer *b, int strides)
{
    if (a->itemsize != b->itemsize || a->ndim != b->ndim || a->format == NULL || b->format == NULL
        || strcmp(a->format, b->format) != 0) {
        return 0;
    }
    for (int d = 0; d < a->ndim; d++) {
        if (a->shape[d] != b->shape[d] || (strides && a->strides[d] != b->strides[d])) {
            return 0;
        }
    }
    return 1;
}

/* ``c[0] += 1`` for a version counter ``c`` (a list), None meaning no counter */
static int
bump_counter(PyObject *c)
{
    if (c == Py_None) {
        return 0;
    }
    PyObject *v = PySequence_GetItem(c, 0);
    if (v == NULL) {
        return -1;
    }
    PyObject *next = PyNumber_Add(v, E.one);
    Py_DECREF(v);
    if (next == NULL) {
        return -1;
    }
    int rc = PySequence_SetItem(c, 0, next);
    Py_DECREF(next);
    return rc;
}

/* One leaf's gradient into its ``.grad``, the lock held: its two usual cases here, the rest by the engine's
 * _accumulate. 1) no ``.grad`` yet and an array only the gradient holds, owning its writable memory, laid out as
 * the leaf: stored as it is; 2) a ``.grad`` with no history, writable and of the gradient's shape: added in place
 * (``np.add(old, g, out=old)``) and its version bumped. The gradient has the leaf's item type in both. */
static int
accumulate_one(PyObject *var, PyObject *meta, PyObject *g)
{
    if (!PyObject_TypeCheck(var, S.tensor) || !PyObject_TypeCheck(g, S.tensor)) {
        goto general;
    }
    PyObject *data = SLOT(g, S.data), *vd = SLOT(var, S.data);
    int exclusive = Py_REFCNT(data) == 1;  /* (read before the buffers below take references) */
    PyObject *old = PyObject_GetAttr(meta, C.s_grad);
    if (old == NULL) {
        return -1;
    }
    Py_buffer gv, vv;
    if (PyObject_GetBuffer(data, &gv, PyBUF_RECORDS_RO) < 0) {
        PyErr_Clear();
        Py_DECREF(old);
        goto general;
    }
    if (PyObject_GetBuffer(vd, &vv, PyBUF_RECORDS_RO) < 0) {
        PyErr_Clear();
        PyBuffer_Release(&gv);
        Py_DECREF(old);
        goto general;
    }
    int done = 0, rc = 0;
    if (old == Py_None) {
        if (exclusive && same_layout(&gv, &vv, 1)) {
            PyObject *base = PyObject_GetAttr(data, C.s_base);
            if (base == NULL) {
                rc = -1;
            }
            else {
                Py_buffer wv;  /* writable: a read-only array refuses */
                if (base == Py_None && PyObject_GetBuffer(data, &wv, PyBUF_WRITABLE) == 0) {
                    PyBuffer_Release(&wv);
                    PyObject *t = new_tensor(data);
                    rc = t == NULL ? -1 : PyObject_SetAttr(meta, C.s_grad, t);
                    Py_XDECREF(t);
                    done = 1;
                }
                PyErr_Clear();
                Py_DECREF(base);
            }
        }
    }
    else if (same_layout(&gv, &vv, 0) && PyObject_TypeCheck(old, S.tensor) && SLOT(old, S.grad_fn) == Py_None) {
        PyObject *od = SLOT(old, S.data);
        Py_buffer ov;
        if (PyObject_GetBuffer(od, &ov, PyBUF_RECORDS) == 0) {  /* writable, with its shape */
            int fits = ov.ndim == gv.ndim;
            for (int d = 0; fits && d < ov.ndim; d++) {
                fits = ov.shape[d] == gv.shape[d];
            }
            PyBuffer_Release(&ov);
            if (fits) {
                PyObject *call[3] = {od, data, od};
                PyObject *r = PyObject_Vectorcall(C.add, call, 3, NULL);
                rc = r == NULL ? -1 : bump_counter(SLOT(old, S.vc));
                Py_XDECREF(r);
                done = 1;
            }
        }
        else {
            PyErr_Clear();
        }
    }
    PyBuffer_Release(&vv);
    PyBuffer_Release(&gv);
    Py_DECREF(old);
    if (done || rc < 0) {
        return rc;
    }
general:;
    PyObject *call[3] = {var, meta, g};
    PyObject *r = PyObject_Vectorcall(C.accumulate, call, 3, NULL);
    Py_XDECREF(r);
    return r == NULL ? -1 : 0;
}

/* commit(pending): the engine's _commit without create_graph, when every entry is a leaf's ``(tensor, gradient,
 * meta)`` with no post-accumulate-grad hook and no gradient dtype of its own; returns whether it committed (False:
 * nothing done, the Python function does it all). */
static PyObject *
commit(PyObject *module, PyObject *pending)
{
    if (!ready()) {
        return NULL;
    }
    if (C.lock == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "tensorlib._accel.setup_commit() has not been called");
        return NULL;
    }
    if (!PyList_CheckExact(pending)) {
        PyErr_Format(PyExc_TypeError, "commit() expects a list, got %.100s", Py_TYPE(pending)->tp_name);
        return NULL;
    }
    PyObject *entries = PyList_AsTuple(pending);  /* (hooks the fallback runs cannot change what we iterate) */
    if (entries == NULL) {
        return NULL;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(entries);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *entry = PyTuple_GET_ITEM(entries, i);
        if (!PyTuple_CheckExact(entry) || PyTuple_GET_SIZE(entry) != 3 || PyTuple_GET_ITEM(entry, 2) == Py_None) {
            Py_DECREF(entries);
            Py_RETURN_FALSE;
        }
        PyObject *meta = PyTuple_GET_ITEM(entry, 2);
        PyObject *dtype = PyObject_GetAttr(meta, C.s_grad_dtype);
        if (dtype == NULL) {
            Py_DECREF(entries);
            return NULL;
        }
        int plain = dtype == C.same_dtype;
        Py_DECREF(dtype);
        int hooks = plain ? attr_true(meta, C.s_post_acc_hooks) : 0;
        if (hooks < 0) {
            Py_DECREF(entries);
            return NULL;
        }
        if (!plain || hooks) {
            Py_DECREF(entries);
            Py_RETURN_FALSE;
        }
    }
    PyObject *r = PyObject_CallNoArgs(C.acquire);
    if (r == NULL) {
        Py_DECREF(entries);
        return NULL;
    }
    Py_DECREF(r);
    int rc = 0;
    for (Py_ssize_t i = 0; i < n && rc == 0; i++) {
        PyObject *entry = PyTuple_GET_ITEM(entries, i);
        rc = accumulate_one(PyTuple_GET_ITEM(entry, 0), PyTuple_GET_ITEM(entry, 2), PyTuple_GET_ITEM(entry, 1));
    }
    Py_DECREF(entries);
    /* released on error too, the error kept aside meanwhile (as the Python version's try/finally) */
    PyObject *type = NULL, *value = NULL, *tb = NULL;
    if (rc < 0) {
        PyErr_Fetch(&type, &value, &tb);
    }
    r = PyObject_CallNoArgs(C.release);
    if (r == NULL) {  /* an error of the release replaces the commit's, as in Python's finally */
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        return NULL;
    }
    Py_DECREF(r);
    if (rc < 0) {
        PyErr_Restore(type, value, tb);
        return NULL;
    }
    Py_RETURN_TRUE;
}

/* -- the optimizers' update ``p -= lr * g``, fused ------------------------------------------------------------- */

/* 1: ``view`` holds float32 ('f') or float64 ('d') items in native order, 0: anything else. */
static int
float_format(const Py_buffer *view)
{
    const char *f = view->format;
    if (f == NULL) {
        return 0;
    }
    if (f[0] == '@' || f[0] == '=' || f[0] == '<') {  /* NumPy writes no prefix for native order; '<' on x86/ARM */
        if (f[0] == '<' && PY_BIG_ENDIAN) {
            return 0;
        }
        f++;
    }
    return (f[0] == 'f' && f[1] == '\0' && view->itemsize == 4) || (f[0] == 'd' && f[1] == '\0' && view->itemsize == 8);
}

/* The loops: NumPy's ``np.subtract(p, lr * g, out=p)`` for a Python float ``lr`` rounds ``lr`` to the arrays'
 * type, rounds the product, then the difference, so no contraction into a fused multiply-add (which would round
 * once): the pure-Python path and this one give the same bits. */
#if defined(_MSC_VER)
#define RESTRICT __restrict
#else
#define RESTRICT restrict
#endif
#if defined(__clang__)
#define NO_CONTRACT _Pragma("clang fp contract(off)")
#define NO_CONTRACT_ATTR
#elif defined(__GNUC__)
#define NO_CONTRACT
#define NO_CONTRACT_ATTR __attribute__((optimize("fp-contract=off")))
#else
#define NO_CONTRACT
#define NO_CONTRACT_ATTR
#endif

NO_CONTRACT_ATTR static void
sub_scaled_f32(float *RESTRICT p, const float *RESTRICT g, Py_ssize_t n, float lr)
{
    NO_CONTRACT
    for (Py_ssize_t i = 0; i < n; i++) {
        float step = lr * g[i];
        p[i] = p[i] - step;
    }
}

NO_CONTRACT_ATTR static void
sub_scaled_f64(double *RESTRICT p, const double *RESTRICT g, Py_ssize_t n, double lr)
{
    NO_CONTRACT
    for (Py_ssize_t i = 0; i < n; i++) {
        double step = lr * g[i];
        p[i] = p[i] - step;
    }
}

/* sub_scaled(p, g, lr): ``p -= lr * g`` in one pass when ``p`` (writable) and ``g`` are ndarrays of one float type
 * laid out alike in one block each, the blocks apart, and ``lr`` a Python float or int; returns whether it did. */
static PyObject *
sub_scaled(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "sub_scaled() takes 3 arguments");
        return NULL;
    }
    if (!ready()) {
        return NULL;
    }
    PyObject *p = args[0], *g = args[1], *lr_obj = args[2];
    if (!Py_IS_TYPE(p, S.ndarray) || !Py_IS_TYPE(g, S.ndarray)) {
        Py_RETURN_FALSE;
    }
    double lr;
    if (PyFloat_CheckExact(lr_obj)) {
        lr = PyFloat_AS_DOUBLE(lr_obj);
    }
    else if (PyLong_CheckExact(lr_obj)) {
        int overflow;
        long long v = PyLong_AsLongLongAndOverflow(lr_obj, &overflow);
        if (overflow || v > (1LL << 24) || v < -(1LL << 24)) {  /* exact in float32 and float64 alike */
            if (PyErr_Occurred()) {
                return NULL;
            }
            Py_RETURN_FALSE;
        }
        lr = (double)v;
    }
    else {
        Py_RETURN_FALSE;
    }
    Py_buffer pv, gv;
    if (PyObject_GetBuffer(p, &pv, PyBUF_RECORDS) < 0) {  /* read-only arrays refuse: NumPy's path raises */
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
    if (PyObject_GetBuffer(g, &gv, PyBUF_RECORDS_RO) < 0) {
        PyBuffer_Release(&pv);
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
    int done = 0;
    Py_ssize_t n = pv.itemsize ? pv.len / pv.itemsize : 0;
    if (float_format(&pv) && float_format(&gv) && pv.itemsize == gv.itemsize && pv.ndim == gv.ndim
        && pv.len == gv.len && PyBuffer_IsContiguous(&pv, 'A') && PyBuffer_IsContiguous(&gv, 'A')) {
        int alike = 1;
        for (int d = 0; d < pv.ndim; d++) {
            if (pv.shape[d] != gv.shape[d] || (pv.shape[d] > 1 && pv.strides[d] != gv.strides[d])) {
                alike = 0;
            }
        }
        char *pb = (char *)pv.buf, *gb = (char *)gv.buf;
        /* disjoint memory (the loops' pointers are restrict): a gradient that is the parameter goes to NumPy */
        if (alike && (pb + pv.len <= gb || gb + gv.len <= pb)) {
            int big = n >= 65536;  /* as NumPy's loops, let other threads run during a long pass */
            PyThreadState *ts = big ? PyEval_SaveThread() : NULL;
            if (pv.itemsize == 4) {
                sub_scaled_f32((float *)pb, (const float *)gb, n, (float)lr);
            }
            else {
                sub_scaled_f64((double *)pb, (const double *)gb, n, lr);
            }
            if (big) {
                PyEval_RestoreThread(ts);
            }
            done = 1;
        }
    }
    PyBuffer_Release(&gv);
    PyBuffer_Release(&pv);
    return PyBool_FromLong(done);
}

static PyMethodDef accel_methods[] = {
    {"setup", setup, METH_VARARGS,
     "setup(Tensor, ndarray, asarray)\n--\n\nRead the Tensor class's slot offsets; called once by tensorlib."},
    {"wrap", wrap, METH_O, "wrap(data)\n--\n\nA new plain Tensor around the ndarray ``data``."},
    {"same_dtype", (PyCFunction)(void (*)(void))same_dtype, METH_FASTCALL,
     "same_dtype(a, b, ufunc, dtypes, subclasses=False, scalar_dtypes=None)\n--\n\n"
     "``ufunc`` of two same-dtype tensors (or of a tensor and a Python number) as a Tensor, or None."},
    {"setup_record", setup_record, METH_VARARGS,
     "setup_record(Node, edge, no_edge)\n--\n\nRead the Node class's slot offsets and keep the edge function."},
    {"record", (PyCFunction)(void (*)(void))record, METH_FASTCALL,
     "record(node_cls, data, inputs)\n--\n\nA new node with edges to ``inputs`` and its output around ``data``."},
    {"setup_default_result", setup_default_result, METH_VARARGS,
     "setup_default_result(not_sequences, no_wrap, python)\n--\n\nThe sets and the Python twin default_result uses."},
    {"default_result", (PyCFunction)(void (*)(void))default_result, METH_FASTCALL,
     "default_result(func, ret, cls, args, kwargs)\n--\n\nThe default handler's result, as ``cls``."},
    {"setup_engine", setup_engine, METH_VARARGS,
     "setup_engine(AccumulateGrad, any_thread, pre_hooks, apply, add)\n--\n\nThe names run_all() uses."},
    {"dependencies", dependencies, METH_O,
     "dependencies(roots)\n--\n\nHow many edges lead into each node reachable from ``roots``."},
    {"setup_commit", setup_commit, METH_VARARGS,
     "setup_commit(lock, add, same_dtype, accumulate)\n--\n\nThe names commit() uses."},
    {"commit", commit, METH_O,
     "commit(pending)\n--\n\nThe engine's commit of its usual entries; whether it committed."},
    {"sub_scaled", (PyCFunction)(void (*)(void))sub_scaled, METH_FASTCALL,
     "sub_scaled(p, g, lr)\n--\n\n``p -= lr * g`` in one pass for float arrays laid out alike; whether it applied."},
    {"setup_nodes", setup_nodes, METH_VARARGS,
     "setup_nodes(SumBackward0, ScaledBackward, SavedTensor, grad_state, empty, fill_limit)\n--\n\n"
     "The common nodes whose backward run_all computes itself when their usual case applies."},
    {"compiled_backward", (PyCFunction)(void (*)(void))compiled_backward, METH_FASTCALL,
     "compiled_backward(node, g)\n--\n\nWhat run_all computes itself for ``node.apply([g])``, or None."},
    {"run_all", (PyCFunction)(void (*)(void))run_all, METH_FASTCALL,
     "run_all(ready, buffers, deps, retain_graph, pending)\n--\n\nThe backward loop over every reachable node."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef accel_module = {
    PyModuleDef_HEAD_INIT, "tensorlib._accel", "tensorlib's optional compiled hot paths.", -1, accel_methods,
};

#ifndef TENSORLIB_ACCEL_SOURCE_SHA256
#define TENSORLIB_ACCEL_SOURCE_SHA256 ""
#endif

PyMODINIT_FUNC
PyInit__accel(void)
{
    PyObject *module = PyModule_Create(&accel_module);
    if (module != NULL && PyModule_AddStringConstant(module, "SOURCE_SHA256", TENSORLIB_ACCEL_SOURCE_SHA256) < 0) {
        Py_CLEAR(module);
    }
    return module;
}
