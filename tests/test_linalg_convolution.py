"""scipy.linalg and the convolutions (srcad/rules/scipy_linalg.py, convolution.py,
scipy_signal.py) beyond the spec rows: values of the source implementations against scipy's
own, calls with arguments whose derivative srcad cannot honour (NoRuleError naming the
line), and a small LeNet-style convolutional network, checked against finite differences."""

import numpy as np
import pytest
import scipy.linalg
import scipy.signal
from oracle import assert_tree_close, fd_grad

import srcad

RNG = np.random.default_rng(14)
A = RNG.normal(size=(4, 4)) + 4.0 * np.eye(4)
S = A @ A.T
B = RNG.normal(size=(4, 2))


# -- the source implementations compute what scipy computes --------------------------------------

def _values(a, b):
    lu = scipy.linalg.lu_factor(a)
    return [scipy.linalg.inv(a), scipy.linalg.inv(a, assume_a="pos"),
            scipy.linalg.solve(a, b, assume_a="sym"),
            scipy.linalg.solve(a, b, transposed=True), scipy.linalg.det(a), scipy.linalg.pinv(a[:, :3]),
            scipy.linalg.lstsq(a[:, :3], b[:, 0])[1], scipy.linalg.lstsq(a, b, lapack_driver="gelsy")[1],
            scipy.linalg.eigh(a)[0], scipy.linalg.eigh(a, eigvals_only=True, subset_by_index=[1, 2]),
            scipy.linalg.svd(a, compute_uv=False), scipy.linalg.qr(a)[1],
            scipy.linalg.qr(a[:, :3], mode="r")[0],
            scipy.linalg.norm(a, 2), scipy.linalg.cholesky(a), scipy.linalg.cholesky(a, lower=True),
            scipy.linalg.cho_factor(a)[0], scipy.linalg.cho_factor(a, lower=True)[0],
            scipy.linalg.cho_solve(scipy.linalg.cho_factor(a), b), scipy.linalg.lu_solve(lu, b),
            scipy.linalg.lu_solve(lu, b, trans=1), scipy.linalg.expm_frechet(0.2 * a, b @ b.T)[1],
            scipy.linalg.lu(a)[0] + 2.0 * scipy.linalg.lu(a)[1] + 3.0 * scipy.linalg.lu(a)[2],
            scipy.linalg.lu(a, permute_l=True)[0], scipy.linalg.lu(a, p_indices=True)[0] * 1.0]


def _value_sum(a, b):
    total = 0.0
    for k, v in enumerate(_values(a, b)):  # (weights that tell the entries apart)
        total = total + np.sum(np.ravel(v) * np.cos(np.arange(np.size(v)) + k))
    return total


def test_source_implementations_compute_scipys_values():
    # srcad's primal (the gradient's first result) runs the implementations, python runs scipy
    value, _ = srcad.value_and_grad(_value_sum)(S + np.triu(A, 1), B)
    np.testing.assert_allclose(value, _value_sum(S + np.triu(A, 1), B), rtol=1e-10)


# -- what srcad cannot differentiate exactly is refused ------------------------------------------

def _overwrite(a):
    return np.sum(scipy.linalg.solve_triangular(a, B, overwrite_b=True))


def _wrap(a):
    return np.sum(scipy.signal.convolve2d(a, B, boundary="wrap"))


def _fill(a):
    return np.sum(scipy.signal.correlate2d(a, B, fillvalue=1.0))


def _axes(a):
    return np.sum(scipy.signal.fftconvolve(a, B[:, :1], axes=0))


def _generalized(a):
    return np.sum(scipy.linalg.eigh(a, S)[0])


def _tridiagonal(a):
    return np.sum(scipy.linalg.solve(a, B, assume_a="tridiagonal"))


def _inv_diagonal(a):
    return np.sum(scipy.linalg.inv(a, assume_a="diagonal"))


def _lu_overwrite(a):
    return np.sum(scipy.linalg.lu_factor(a, overwrite_a=True)[0])


def _pinv_rtol(a):
    return np.sum(scipy.linalg.pinv(a, rtol=1e-3))


@pytest.mark.parametrize("fn, what", [(_overwrite, "overwrite_b"), (_wrap, "boundary"), (_fill, "fillvalue"),
                                      (_axes, "axes"), (_generalized, "b="), (_tridiagonal, "assume_a"),
                                      (_inv_diagonal, "assume_a"), (_lu_overwrite, "overwrite_a"),
                                      (_pinv_rtol, "rtol")])
def test_arguments_without_an_exact_derivative_are_refused(fn, what):
    with pytest.raises(srcad.NoRuleError, match=what) as info:
        srcad.grad(fn)(A)
    assert "test_linalg_convolution.py" in str(info.value)


def test_qr_of_a_tall_matrix_in_full_mode_raises():
    with pytest.raises(ValueError, match="mode='economic'"):
        srcad.grad(lambda a: np.sum(scipy.linalg.qr(a)[0]))(A[:, :3])


def _sylvester_chain(x):
    # expm, logm, the Sylvester equation and a banded solve together, to second order
    y = scipy.linalg.expm(0.3 * x) + scipy.linalg.logm(S) @ x
    z = scipy.linalg.solve_sylvester(x, x.T + 8.0 * np.eye(4), y)
    band = np.stack([x[0], x[1] + 9.0, x[2]])
    return np.sum(z ** 2) + np.sum(scipy.linalg.solve_banded((1, 1), band, z[:, 0]) ** 2)


def test_a_chain_of_matrix_functions_to_second_order():
    x = A / 4.0
    assert_tree_close(srcad.grad(_sylvester_chain)(x), fd_grad(_sylvester_chain, [x]), rtol=1e-5, atol=1e-6)
    u = RNG.normal(size=x.shape)

    def directional(y):
        return np.sum(srcad.grad(_sylvester_chain)(y) * u)

    assert_tree_close(srcad.grad(directional)(x), fd_grad(directional, [x], eps=1e-5), rtol=1e-4, atol=1e-5)


# -- a small LeNet-style convolutional network (the shape of HIPS autograd's examples/convnet.py) --
#
# autograd's example calls its own autograd.scipy.signal.convolve(A, B, axes=..., dot_axes=...,
# mode=...), which scipy.signal does not have; here that call is one function of scipy.signal's
# convolve, summed over the input channels.

def convolve(inputs, params, mode):
    """out[n, o] = sum_i convolve(inputs[n, i], params[i, o]) (images [n, i, y, x], filters [i, o, y, x])."""
    images = []
    for n in range(inputs.shape[0]):
        channels = []
        for o in range(params.shape[1]):
            total = scipy.signal.convolve(inputs[n, 0], params[0, o], mode=mode)
            for i in range(1, params.shape[0]):
                total = total + scipy.signal.convolve(inputs[n, i], params[i, o], mode=mode)
            channels.append(total)
        images.append(np.stack(channels))
    return np.stack(images)


class Weights:
    """Where each layer's weights are in one flat parameter vector."""

    def __init__(self):
        self.where = {}
        self.size = 0

    def add(self, name, shape):
        start = self.size
        self.size += int(np.prod(shape))
        # (autograd's example keeps slice(start, stop) here, which srcad refuses as an index)
        self.where[name] = (start, self.size, shape)

    def get(self, vect, name):
        start, stop, shape = self.where[name]
        return np.reshape(vect[start:stop], shape)


class Conv:
    def __init__(self, kernel, filters):
        self.kernel, self.filters = kernel, filters

    def build(self, shape):
        self.weights = Weights()
        self.weights.add("params", (shape[0], self.filters) + self.kernel)
        self.weights.add("biases", (1, self.filters, 1, 1))
        return self.weights.size, (self.filters, shape[1] - self.kernel[0] + 1, shape[2] - self.kernel[1] + 1)

    def forward(self, inputs, vect):
        params = self.weights.get(vect, "params")
        return convolve(inputs, params, "valid") + self.weights.get(vect, "biases")


class MaxPool:
    def __init__(self, pool):
        self.pool = pool

    def build(self, shape):
        return 0, (shape[0], shape[1] // self.pool[0], shape[2] // self.pool[1])

    def forward(self, inputs, vect):
        # (autograd's example grows this tuple in a loop, `shape += (...)`, which srcad refuses:
        # the type of a tuple that grows in a loop is not known while transforming)
        (n, c, y, x), (py, px) = inputs.shape, self.pool
        return np.max(np.max(inputs.reshape((n, c, y // py, py, x // px, px)), axis=3), axis=4)


class Full:
    def __init__(self, size, nonlinearity):
        self.size, self.nonlinearity = size, nonlinearity

    def build(self, shape):
        self.weights = Weights()
        self.weights.add("params", (int(np.prod(shape)), self.size))
        self.weights.add("biases", (self.size,))
        return self.weights.size, (self.size,)

    def forward(self, inputs, vect):
        if inputs.ndim > 2:
            inputs = inputs.reshape((inputs.shape[0], int(np.prod(inputs.shape[1:]))))
        x = np.dot(inputs, self.weights.get(vect, "params")) + self.weights.get(vect, "biases")
        if self.nonlinearity == "tanh":
            return np.tanh(x)
        return x - scipy.special.logsumexp(x, axis=1, keepdims=True)


def make_net(input_shape, layers, l2):
    weights, shape = Weights(), input_shape
    for layer in layers:
        n, shape = layer.build(shape)
        weights.add(layer, (n,))

    def predictions(vect, inputs):
        units = inputs
        for layer in layers:
            units = layer.forward(units, weights.get(vect, layer))
        return units

    def loss(vect, inputs, targets):
        return l2 * np.dot(vect, vect) - np.sum(predictions(vect, inputs) * targets)

    return weights.size, loss


def test_convnet_gradient_against_finite_differences():
    import scipy.special  # noqa: F401  (the softmax layer)
    layers = [Conv((3, 3), 2), MaxPool((2, 2)), Conv((2, 2), 2), Full(4, "tanh"), Full(3, "softmax")]
    n, loss = make_net((1, 8, 8), layers, 0.1)
    rng = np.random.default_rng(5)
    vect = rng.normal(size=n) * 0.5
    images = rng.normal(size=(2, 1, 8, 8))
    targets = np.eye(3)[[0, 2]]
    got = srcad.grad(loss)(vect, images, targets)
    assert_tree_close(got, fd_grad(loss, [vect, images, targets]), rtol=1e-5, atol=1e-6, what="convnet")
    assert_tree_close(srcad.grad(loss, argnums=1)(vect, images, targets),
                      fd_grad(loss, [vect, images, targets], 1), rtol=1e-5, atol=1e-6, what="convnet inputs")
