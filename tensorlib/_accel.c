/* tensorlib._accel: the optional compiled half of tensorlib's hot paths.
 *
 * Everything here has a pure-Python twin that is the reference (tensorlib/_accelerator.py names them); the
 * package works, and passes the same tests, without this module. It only removes interpreter work from calls
 * that small tensors pay on every op:
 *
 *   wrap(data)                      -> a new plain Tensor around the ndarray ``data``, unchecked as its twin
 *                                      tensorlib._tensor._wrap is
 *   same_dtype(a, b, ufunc, dtypes) -> ``ufunc(a._data, b._data)`` as a new Tensor when ``a`` and ``b`` are plain
 *                                      Tensors (not subclasses) of one dtype in ``dtypes``, neither requiring
 *                                      grad, and the shapes broadcast; None otherwise (the caller then takes its
 *                                      general path, which raises torch's errors). See tensorlib._methods.
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
    PyTypeObject *tensor;   /* tensorlib.Tensor */
    PyTypeObject *ndarray;  /* numpy.ndarray */
    PyObject *asarray;      /* numpy.asarray: a ufunc of 0-d arrays returns a NumPy scalar */
    PyObject *str_dtype;
    Py_ssize_t data, size, grad_fn, requires_grad, vc, base, view_version;
} accel_state;

/* One Tensor class per process (the module is imported once, by tensorlib._accelerator). */
static accel_state S;

#define SLOT(o, off) (*(PyObject **)((char *)(o) + (off)))

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

static PyObject *
same_dtype(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 4) {
        PyErr_Format(PyExc_TypeError, "same_dtype() takes 4 arguments (%zd given)", nargs);
        return NULL;
    }
    if (!ready()) {
        return NULL;
    }
    PyObject *a = args[0], *b = args[1], *ufunc = args[2], *dtypes = args[3];
    if (!PyAnySet_Check(dtypes)) {
        PyErr_Format(PyExc_TypeError, "same_dtype(): dtypes must be a set or frozenset, not %.100s",
                     Py_TYPE(dtypes)->tp_name);
        return NULL;
    }
    if (!Py_IS_TYPE(a, S.tensor) || !Py_IS_TYPE(b, S.tensor)) {
        Py_RETURN_NONE;
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

static PyMethodDef accel_methods[] = {
    {"setup", setup, METH_VARARGS,
     "setup(Tensor, ndarray, asarray)\n--\n\nRead the Tensor class's slot offsets; called once by tensorlib."},
    {"wrap", wrap, METH_O, "wrap(data)\n--\n\nA new plain Tensor around the ndarray ``data``."},
    {"same_dtype", (PyCFunction)(void (*)(void))same_dtype, METH_FASTCALL,
     "same_dtype(a, b, ufunc, dtypes)\n--\n\n``ufunc`` of two plain same-dtype tensors as a Tensor, or None."},
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
