// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "core/layout/Pca.h"

#include <QtTest/QtTest>

#include <array>
#include <cmath>
#include <random>
#include <stdexcept>
#include <vector>

using setscope::layout::pca;

namespace {

using Matrix = std::vector<std::vector<double>>; // row-major, small

// A rotation of R^d built from Givens rotations with fixed angles: orthogonal by
// construction, so its columns are known orthonormal directions.
Matrix givensRotation(int d, double seed)
{
    Matrix r(d, std::vector<double>(d, 0.0));
    for (int i = 0; i < d; ++i)
        r[i][i] = 1.0;
    int k = 0;
    for (int p = 0; p < d; ++p) {
        for (int q = p + 1; q < d; ++q) {
            const double a = seed * (0.37 + 0.23 * k++);
            const double c = std::cos(a), s = std::sin(a);
            for (int i = 0; i < d; ++i) {
                const double rp = r[i][p], rq = r[i][q];
                r[i][p] = c * rp - s * rq;
                r[i][q] = s * rp + c * rq;
            }
        }
    }
    return r;
}

std::vector<double> column(const Matrix& m, int k)
{
    std::vector<double> v;
    for (const auto& row : m)
        v.push_back(row[k]);
    return v;
}

// The sign rule as the header states it: the largest-magnitude entry is positive.
double ruleSign(const std::vector<double>& v)
{
    std::size_t arg = 0;
    for (std::size_t i = 1; i < v.size(); ++i)
        if (std::abs(v[i]) > std::abs(v[arg]))
            arg = i;
    return v[arg] < 0 ? -1.0 : 1.0;
}

} // namespace

class TestPca : public QObject {
    Q_OBJECT

private Q_SLOTS:
    void handSolved2D();
    void crossDesignExactWithSignRule();
    void rotatedGaussianRecoversAxesAndVariances();
    void fullProjectionPreservesDistances();
    void degenerateInputs();
    void invalidArguments();
    void largeInput();
};

// Points (±3, 0) and (0, ±1) rotated by the angle with cos = 0.8, sin = 0.6 and moved to
// (10, -5). By hand: covariance [[4.08, 2.56], [2.56, 2.5867]] with eigenvalues 6 and 2/3,
// axes (0.8, 0.6) and (-0.6, 0.8) (the sign rule keeps both: 0.8 is the largest loading),
// so the projection gives back (±3, 0) and (0, ±1).
void TestPca::handSolved2D()
{
    const std::vector<float> x = {10.0f + 2.4f, -5.0f + 1.8f, 10.0f - 2.4f, -5.0f - 1.8f,
                                  10.0f - 0.6f, -5.0f + 0.8f, 10.0f + 0.6f, -5.0f - 0.8f};
    const std::vector<float> y = pca(x.data(), 4, 2, 2);
    const std::vector<float> expected = {3, 0, -3, 0, 0, 1, 0, -1};
    QCOMPARE(y.size(), expected.size());
    for (std::size_t k = 0; k < y.size(); ++k)
        QVERIFY2(std::abs(y[k] - expected[k]) < 1e-5f, qPrintable(QString::number(k)));

    const std::vector<float> y1 = pca(x.data(), 4, 2, 1);
    const std::vector<float> expected1 = {3, -3, 0, 0};
    QCOMPARE(y1.size(), expected1.size());
    for (std::size_t k = 0; k < y1.size(); ++k)
        QVERIFY(std::abs(y1[k] - expected1[k]) < 1e-5f);
}

// Rows c ± s_k v_k for orthonormal v_k: the covariance is exactly sum 2 s_k² v_k v_kᵀ / (rows - 1),
// so component k of row 2k is exactly s_k times the sign that makes v_k's largest loading
// positive. Negating a v_k (the same point set, rows swapped) must give the same axes.
void TestPca::crossDesignExactWithSignRule()
{
    const int d = 4;
    const std::array<double, d> s = {4.0, 3.0, 2.0, 1.0};
    const std::array<double, d> c = {1.5, -2.0, 0.25, 7.0};
    for (int variant = 0; variant < 3; ++variant) {
        Matrix r = givensRotation(d, 1.0 + 0.5 * variant);
        if (variant == 2)
            for (int i = 0; i < d; ++i)
                r[i][1] = -r[i][1];
        std::vector<float> x;
        for (int k = 0; k < d; ++k)
            for (double sg : {1.0, -1.0})
                for (int i = 0; i < d; ++i)
                    x.push_back(static_cast<float>(c[i] + sg * s[k] * r[i][k]));
        const std::vector<float> y = pca(x.data(), 2 * d, d, d);
        QCOMPARE(y.size(), std::size_t(2 * d * d));
        for (int k = 0; k < d; ++k) {
            const double sign = ruleSign(column(r, k));
            for (int comp = 0; comp < d; ++comp) {
                const double want = comp == k ? sign * s[k] : 0.0;
                QVERIFY2(std::abs(y[(2 * k) * d + comp] - want) < 1e-4,
                         qPrintable(QString("variant %1 axis %2 comp %3: %4 vs %5")
                                        .arg(variant).arg(k).arg(comp)
                                        .arg(y[(2 * k) * d + comp]).arg(want)));
                QVERIFY(std::abs(y[(2 * k + 1) * d + comp] + want) < 1e-4);
            }
        }
    }
}

// An axis-aligned Gaussian with variances 25, 9, 4, 1, 0.25, rotated by a known rotation
// and shifted: the components come back with those variances, uncorrelated, along the
// rotation's columns, each signed by the rule.
void TestPca::rotatedGaussianRecoversAxesAndVariances()
{
    const int d = 5;
    const int rows = 20000;
    const std::array<double, d> var = {25.0, 9.0, 4.0, 1.0, 0.25};
    const Matrix r = givensRotation(d, 0.9);
    std::mt19937_64 rng(42);
    std::normal_distribution<double> normal(0.0, 1.0);
    std::vector<float> x(std::size_t(rows) * d);
    std::vector<double> xd(x.size());
    for (int n = 0; n < rows; ++n) {
        std::array<double, d> z{};
        for (int k = 0; k < d; ++k)
            z[k] = std::sqrt(var[k]) * normal(rng);
        for (int i = 0; i < d; ++i) {
            double v = 3.0 * i - 4.0;
            for (int k = 0; k < d; ++k)
                v += r[i][k] * z[k];
            x[std::size_t(n) * d + i] = static_cast<float>(v);
            xd[std::size_t(n) * d + i] = x[std::size_t(n) * d + i];
        }
    }
    const std::vector<float> y = pca(x.data(), rows, d, d);
    QCOMPARE(y.size(), x.size());

    std::array<double, d> mean{};
    for (int n = 0; n < rows; ++n)
        for (int i = 0; i < d; ++i)
            mean[i] += xd[std::size_t(n) * d + i] / rows;

    for (int k = 0; k < d; ++k) {
        double m = 0.0;
        for (int n = 0; n < rows; ++n)
            m += y[std::size_t(n) * d + k];
        m /= rows;
        QVERIFY2(std::abs(m) < 1e-3 * std::sqrt(var[0]), "projected data is centred");

        double vk = 0.0;
        for (int n = 0; n < rows; ++n)
            vk += double(y[std::size_t(n) * d + k]) * y[std::size_t(n) * d + k];
        vk /= rows - 1;
        QVERIFY2(std::abs(vk / var[k] - 1.0) < 0.05,
                 qPrintable(QString("variance %1: %2 vs %3").arg(k).arg(vk).arg(var[k])));

        for (int l = 0; l < k; ++l) {
            double cov = 0.0, vl = 0.0;
            for (int n = 0; n < rows; ++n) {
                cov += double(y[std::size_t(n) * d + k]) * y[std::size_t(n) * d + l];
                vl += double(y[std::size_t(n) * d + l]) * y[std::size_t(n) * d + l];
            }
            QVERIFY2(std::abs(cov) / std::sqrt(vk * (rows - 1) * vl) < 1e-4, "components uncorrelated");
        }

        // The axis behind component k, by least squares of the centred data on it.
        std::vector<double> axis(d, 0.0);
        double zz = 0.0;
        for (int n = 0; n < rows; ++n) {
            const double zk = y[std::size_t(n) * d + k];
            zz += zk * zk;
            for (int i = 0; i < d; ++i)
                axis[i] += (xd[std::size_t(n) * d + i] - mean[i]) * zk;
        }
        double norm = 0.0;
        for (double& a : axis) {
            a /= zz;
            norm += a * a;
        }
        norm = std::sqrt(norm);
        QVERIFY2(std::abs(norm - 1.0) < 1e-3, "axes are unit vectors");
        const std::vector<double> truth = column(r, k);
        double dot = 0.0;
        for (int i = 0; i < d; ++i)
            dot += axis[i] / norm * truth[i];
        QVERIFY2(std::abs(dot) > 0.995, qPrintable(QString("axis %1: |cos| = %2").arg(k).arg(std::abs(dot))));
        QCOMPARE(ruleSign(axis), 1.0);
    }
}

void TestPca::fullProjectionPreservesDistances()
{
    const int rows = 60, d = 6;
    std::mt19937_64 rng(7);
    std::normal_distribution<float> normal(0.0f, 1.0f);
    std::vector<float> x(std::size_t(rows) * d);
    for (int n = 0; n < rows; ++n)
        for (int i = 0; i < d; ++i)
            x[std::size_t(n) * d + i] = (i + 1) * normal(rng) + 0.5f * x[std::size_t(n) * d + (i + d - 1) % d];
    const std::vector<float> y = pca(x.data(), rows, d, d);
    for (int a = 0; a < rows; ++a) {
        for (int b = a + 1; b < rows; ++b) {
            double dx = 0.0, dy = 0.0;
            for (int i = 0; i < d; ++i) {
                const double u = double(x[a * d + i]) - x[b * d + i];
                const double v = double(y[a * d + i]) - y[b * d + i];
                dx += u * u;
                dy += v * v;
            }
            QVERIFY(std::abs(std::sqrt(dx) - std::sqrt(dy)) < 1e-4 * (1.0 + std::sqrt(dx)));
        }
    }
}

void TestPca::degenerateInputs()
{
    const std::vector<float> one = {3.0f, -1.0f, 2.0f};
    const std::vector<float> y = pca(one.data(), 1, 3, 2);
    QCOMPARE(y.size(), std::size_t(2));
    QCOMPARE(y[0], 0.0f);
    QCOMPARE(y[1], 0.0f);

    const std::vector<float> same = {1, 2, 1, 2, 1, 2, 1, 2};
    const std::vector<float> z = pca(same.data(), 4, 2, 2);
    for (float v : z)
        QVERIFY(std::abs(v) < 1e-6f);
}

void TestPca::invalidArguments()
{
    const std::vector<float> x = {1, 2, 3, 4};
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, pca(x.data(), 0, 2, 1));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, pca(x.data(), 2, 0, 1));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, pca(x.data(), 2, 2, 3));
    QVERIFY_THROWS_EXCEPTION(std::invalid_argument, pca(x.data(), 2, 2, 0));
}

// The size the GUI feeds it (Fashion-MNIST embeddings): the right shape, variances in
// decreasing order.
void TestPca::largeInput()
{
    const std::int64_t rows = 70000;
    const int d = 64;
    std::mt19937_64 rng(3);
    std::uniform_real_distribution<float> u(-1.0f, 1.0f);
    std::vector<float> x(std::size_t(rows) * d);
    for (std::int64_t n = 0; n < rows; ++n)
        for (int i = 0; i < d; ++i)
            x[std::size_t(n) * d + i] = u(rng) * (1.0f + 0.05f * i);
    const std::vector<float> y = pca(x.data(), rows, d, 3);
    QCOMPARE(y.size(), std::size_t(rows) * 3);
    std::array<double, 3> v{};
    for (std::int64_t n = 0; n < rows; ++n)
        for (int k = 0; k < 3; ++k)
            v[k] += double(y[std::size_t(n) * 3 + k]) * y[std::size_t(n) * 3 + k];
    QVERIFY(v[0] >= v[1] && v[1] >= v[2]);
    // The largest variance is that of the last (widest) input column: (1 + 0.05 * 63)² / 3.
    QVERIFY(std::abs(v[0] / (rows - 1) - std::pow(1.0 + 0.05 * 63, 2) / 3.0) < 0.05 * v[0] / rows);
}

QTEST_GUILESS_MAIN(TestPca)
#include "tst_Pca.moc"
