/* dispatch._speedups: the optional compiled twin of the entry of a protocol's slow path.
 *
 * A wrapper whose arguments are not all plain calls ``_slow(spec, args, kwargs)``. The usual case is a Tensor
 * subclass that keeps the default handler: Protocol._slow then runs the implementation with subclass dispatch
 * off and converts the result, without calling the handler. slow_path() builds a callable that takes that
 * shortcut in C and hands every other call to Protocol._slow_general, the rest of the Python slow path.
 * dispatch/_protocol.py's Protocol._slow is the reference: the two must take the same decisions in the same order.
 *
 *   slow_path(protocol, slow_general, plain, disabling, tls, method, enabled, subclasses_disabled) -> callable
 *
 * ``plain`` (the plain-type set), ``disabling`` (the list of active disable contexts) and ``tls`` (the
 * thread-local holder of the dispatch state) are the protocol's own objects, which it never rebinds; the
 * default handler, its convert and the mode count are read from the protocol at every call, since they change.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

static PyObject *s_default, *s_default_convert, *s_mode_count, *s_plain_call, *s_public_impl, *s_public,
    *s_operator, *s_state, *s_disabled;

/* the bound state of one protocol's slow_path(): a tuple, in this order */
enum { P_PROTOCOL, P_GENERAL, P_PLAIN, P_DISABLING, P_TLS, P_METHOD, P_ENABLED, P_SUB_DISABLED, P_SIZE };

/* 1: the attribute of ``o`` is true, 0: false, -1: error */
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

/* The type of the one implementer among the arguments (borrowed), NULL (no error) when the shortcut does not
 * apply: none, or a second non-plain type. */
static PyObject *
sole_implementer(PyObject *plain, PyObject *args, PyObject *kwargs, int *error)
{
    PyTypeObject *found = NULL;
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyTypeObject *tp = Py_TYPE(PyTuple_GET_ITEM(args, i));
        if (tp == found) {
            continue;
        }
        int is_plain = PySet_Contains(plain, (PyObject *)tp);
        if (is_plain < 0) {
            *error = 1;
            return NULL;
        }
        if (!is_plain) {
            if (found != NULL) {
                return NULL;  /* a second kind of argument: the general path */
            }
            found = tp;
        }
    }
    if (found != NULL && kwargs != NULL && PyDict_GET_SIZE(kwargs) > 0) {
        Py_ssize_t pos = 0;
        PyObject *key, *value;
        while (PyDict_Next(kwargs, &pos, &key, &value)) {
            PyTypeObject *tp = Py_TYPE(value);
            if (tp == found) {
                continue;
            }
            int is_plain = PySet_Contains(plain, (PyObject *)tp);
            if (is_plain < 0) {
                *error = 1;
                return NULL;
            }
            if (!is_plain) {
                return NULL;
            }
        }
    }
    return (PyObject *)found;
}

/* the last implementer type whose handler was found to be the protocol's default (see shortcut()) */
static PyTypeObject *known_type;
static unsigned int known_version;
static PyObject *known_default, *known_state;

/* The shortcut; *taken is 0 when it does not apply (and nothing was called). */
static PyObject *
shortcut(PyObject *st, PyObject *spec, PyObject *args, PyObject *kwargs, int *taken)
{
    PyObject *protocol = PyTuple_GET_ITEM(st, P_PROTOCOL);
    *taken = 0;
    PyObject *dflt = PyObject_GetAttr(protocol, s_default);
    if (dflt == NULL) {
        return NULL;
    }
    PyObject *result = NULL, *handler = NULL, *state = NULL;
    int ok;
    if (dflt == Py_None || (ok = attr_true(spec, s_plain_call)) == 0) {
        goto done;
    }
    if (ok < 0) {
        goto fail;
    }
    if (PyList_GET_SIZE(PyTuple_GET_ITEM(st, P_DISABLING)) > 0) {
        goto done;
    }
    if ((ok = attr_true(protocol, s_mode_count)) != 0) {
        if (ok < 0) {
            goto fail;
        }
        goto done;
    }
    int error = 0;
    PyObject *found = sole_implementer(PyTuple_GET_ITEM(st, P_PLAIN), args, kwargs, &error);
    if (found == NULL) {
        if (error) {
            goto fail;
        }
        goto done;
    }
    /* handler = getattr(found, method, None): the default handler, bound to ``found`` itself. A type found so
     * before, unchanged since (its version tag: CPython gives a type a new one whenever it or a base changes), with
     * the same default and a plain metatype, is not looked up again. */
    PyTypeObject *tp = (PyTypeObject *)found;
    if (!(tp == known_type && tp->tp_version_tag != 0 && tp->tp_version_tag == known_version && dflt == known_default
          && Py_IS_TYPE(found, &PyType_Type) && st == known_state)) {
        handler = PyObject_GetAttr(found, PyTuple_GET_ITEM(st, P_METHOD));
        if (handler == NULL) {
            if (!PyErr_ExceptionMatches(PyExc_AttributeError)) {
                goto fail;
            }
            PyErr_Clear();
            goto done;
        }
        if (!PyMethod_Check(handler) || PyMethod_GET_FUNCTION(handler) != dflt
            || PyMethod_GET_SELF(handler) != found) {
            goto done;
        }
        if (Py_IS_TYPE(found, &PyType_Type) && tp->tp_version_tag != 0) {
            known_type = tp;  /* (borrowed: a type made later at its address has another tag) */
            known_version = tp->tp_version_tag;
            Py_XSETREF(known_default, Py_NewRef(dflt));
            known_state = st;  /* (borrowed, compared only: the state of the protocol whose handler this is) */
        }
    }
    *taken = 1;
    state = PyObject_GetAttr(PyTuple_GET_ITEM(st, P_TLS), s_state);
    if (state == NULL || PyObject_SetAttr(state, s_disabled, PyTuple_GET_ITEM(st, P_SUB_DISABLED)) < 0) {
        goto fail;
    }
    PyObject *disabling = PyTuple_GET_ITEM(st, P_DISABLING);
    if (PyList_Append(disabling, Py_None) < 0) {
        goto fail;
    }
    PyObject *impl = PyObject_GetAttr(spec, s_public_impl);
    PyObject *ret = NULL;
    if (impl != NULL) {
        ret = PyObject_Call(impl, args, kwargs != NULL && PyDict_GET_SIZE(kwargs) > 0 ? kwargs : NULL);
        Py_DECREF(impl);
    }
    /* finally: the disable context ends, whatever happened (the error, if any, kept aside meanwhile) */
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    Py_ssize_t n = PyList_GET_SIZE(disabling);
    int cleanup = n > 0 ? PyList_SetSlice(disabling, n - 1, n, NULL) : 0;
    if (cleanup == 0) {
        cleanup = PyObject_SetAttr(state, s_disabled, PyTuple_GET_ITEM(st, P_ENABLED));
    }
    if (cleanup < 0) {  /* an error of the cleanup replaces the call's, as in Python's finally */
        Py_XDECREF(type);
        Py_XDECREF(value);
        Py_XDECREF(tb);
        Py_XDECREF(ret);
        goto operator_error;
    }
    PyErr_Restore(type, value, tb);
    if (ret == NULL) {
        goto operator_error;
    }
    PyObject *convert = PyObject_GetAttr(protocol, s_default_convert);
    PyObject *public = convert == NULL ? NULL : PyObject_GetAttr(spec, s_public);
    if (public != NULL) {
        PyObject *call[5] = {public, ret, found, args, kwargs != NULL ? kwargs : Py_None};
        PyObject *empty = NULL;
        if (kwargs == NULL) {  /* Python passes the dict it was given; a wrapper always gives one */
            empty = PyDict_New();
            call[4] = empty;
        }
        if (call[4] != NULL) {
            result = PyObject_Vectorcall(convert, call, 5, NULL);
        }
        Py_XDECREF(empty);
        Py_DECREF(public);
    }
    Py_XDECREF(convert);
    Py_DECREF(ret);
    if (result != NULL) {
        goto done;
    }
operator_error:
    /* except TypeError: an operator gives NotImplemented, so that Python tries the reflected one */
    if (PyErr_ExceptionMatches(PyExc_TypeError)) {
        int op = attr_true(spec, s_operator);  /* (an error here replaces the TypeError) */
        if (op > 0) {
            PyErr_Clear();
            result = Py_NewRef(Py_NotImplemented);
        }
    }
    goto done;
fail:
    result = NULL;
done:
    Py_XDECREF(state);
    Py_XDECREF(handler);
    Py_DECREF(dflt);
    return result;
}

static PyObject *
slow_entry(PyObject *st, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3 || !PyTuple_Check(args[1]) || (args[2] != Py_None && !PyDict_Check(args[2]))) {
        PyErr_SetString(PyExc_TypeError, "the slow path takes (spec, args: tuple, kwargs: dict | None)");
        return NULL;
    }
    PyObject *kwargs = args[2] == Py_None ? NULL : args[2];
    int taken = 0;
    PyObject *r = shortcut(st, args[0], args[1], kwargs, &taken);
    if (r != NULL || taken || PyErr_Occurred()) {
        return r;
    }
    return PyObject_Vectorcall(PyTuple_GET_ITEM(st, P_GENERAL), args, 3, NULL);
}

static PyMethodDef slow_def = {
    "_slow", (PyCFunction)(void (*)(void))slow_entry, METH_FASTCALL,
    "_slow(spec, args, kwargs)\n--\n\nA protocol's slow path: the default handler's shortcut, else the general path.",
};

static PyObject *
slow_path(PyObject *module, PyObject *args)
{
    if (PyTuple_GET_SIZE(args) != P_SIZE) {
        PyErr_Format(PyExc_TypeError, "slow_path() takes %d arguments (%zd given)", P_SIZE, PyTuple_GET_SIZE(args));
        return NULL;
    }
    if (!PyCallable_Check(PyTuple_GET_ITEM(args, P_GENERAL)) || !PyAnySet_Check(PyTuple_GET_ITEM(args, P_PLAIN))
        || !PyList_Check(PyTuple_GET_ITEM(args, P_DISABLING)) || !PyUnicode_Check(PyTuple_GET_ITEM(args, P_METHOD))) {
        PyErr_SetString(PyExc_TypeError,
                        "slow_path(protocol, slow_general: callable, plain: set, disabling: list, tls, method: str, "
                        "enabled, subclasses_disabled)");
        return NULL;
    }
    return PyCFunction_NewEx(&slow_def, args, module);
}

static PyMethodDef speedups_methods[] = {
    {"slow_path", slow_path, METH_VARARGS,
     "slow_path(protocol, slow_general, plain, disabling, tls, method, enabled, subclasses_disabled)\n--\n\n"
     "The compiled entry of a protocol's slow path (see dispatch._protocol.Protocol._slow)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef speedups_module = {
    PyModuleDef_HEAD_INIT, "dispatch._speedups", "dispatch's optional compiled slow-path entry.", -1,
    speedups_methods,
};

#ifndef DISPATCH_SPEEDUPS_SOURCE_SHA256
#define DISPATCH_SPEEDUPS_SOURCE_SHA256 ""
#endif

PyMODINIT_FUNC
PyInit__speedups(void)
{
    const char *names[] = {"_default", "_default_convert", "_mode_count", "plain_call", "public_impl", "public",
                           "operator", "state", "disabled"};
    PyObject **slots[] = {&s_default, &s_default_convert, &s_mode_count, &s_plain_call, &s_public_impl,
                          &s_public, &s_operator, &s_state, &s_disabled};
    for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
        if (*slots[i] == NULL && (*slots[i] = PyUnicode_InternFromString(names[i])) == NULL) {
            return NULL;
        }
    }
    PyObject *module = PyModule_Create(&speedups_module);
    if (module != NULL
        && PyModule_AddStringConstant(module, "SOURCE_SHA256", DISPATCH_SPEEDUPS_SOURCE_SHA256) < 0) {
        Py_CLEAR(module);
    }
    return module;
}
