// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#include "gui/views/map/ItemPresenter.h"

#include "core/data/Dataset.h"
#include "core/layout/GraphLayout.h"
#include "gui/views/Palette.h"

#include <imgui.h>

#include <QOpenGLFunctions_3_3_Core>

#include <algorithm>
#include <cmath>

namespace setscope::gui {

namespace {

ImVec4 toImVec4(const QColor& c) { return ImVec4(float(c.redF()), float(c.greenF()), float(c.blueF()), 1.0f); }

/// Top principal axis of the rows of `x` (n x d, centred) orthogonal to `against` (may be
/// empty): power iteration on X^T X without forming it, from a fixed start (deterministic).
std::vector<double> principalAxis(const std::vector<double>& x, std::size_t n, std::size_t d,
                                  const std::vector<double>& against)
{
    std::vector<double> v(d), xv(n), next(d);
    for (std::size_t j = 0; j < d; ++j)
        v[j] = 1.0 + 0.37 * static_cast<double>(j % 7) - (against.empty() ? 0.0 : 0.5 * static_cast<double>(j % 2));
    auto orthonormalise = [&](std::vector<double>& u) {
        if (!against.empty()) {
            double dot = 0.0;
            for (std::size_t j = 0; j < d; ++j)
                dot += u[j] * against[j];
            for (std::size_t j = 0; j < d; ++j)
                u[j] -= dot * against[j];
        }
        double norm = 0.0;
        for (double a : u)
            norm += a * a;
        norm = std::sqrt(norm);
        if (norm > 0.0)
            for (double& a : u)
                a /= norm;
        return norm;
    };
    orthonormalise(v);
    for (int it = 0; it < 40; ++it) {
        for (std::size_t i = 0; i < n; ++i) {
            double s = 0.0;
            for (std::size_t j = 0; j < d; ++j)
                s += x[i * d + j] * v[j];
            xv[i] = s;
        }
        std::fill(next.begin(), next.end(), 0.0);
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t j = 0; j < d; ++j)
                next[j] += x[i * d + j] * xv[i];
        if (orthonormalise(next) == 0.0)
            break; // no variance left in this direction
        v.swap(next);
    }
    return v;
}

} // namespace

ItemPresenter::ItemPresenter() = default;
ItemPresenter::~ItemPresenter() = default;

void ItemPresenter::setDataset(std::shared_ptr<const data::Dataset> dataset)
{
    m_dataset = std::move(dataset);
    m_textureItem = -1;
    m_glyphItem = -1;
    m_glyph.clear();
    m_graphGlyph = {};
}

QString ItemPresenter::words(std::int64_t item, int maxChars) const
{
    if (item < 0 || !m_dataset || static_cast<std::size_t>(item) >= m_dataset->size() || !m_dataset->hasElementText())
        return {};
    const auto i = static_cast<std::size_t>(item);
    // Heaviest elements first (for documents: the most frequent words), ties in order.
    QString out;
    const std::int64_t b = m_dataset->offsets()[i], e = m_dataset->offsets()[i + 1];
    std::vector<std::int64_t> order(static_cast<std::size_t>(e - b));
    for (std::size_t j = 0; j < order.size(); ++j)
        order[j] = b + static_cast<std::int64_t>(j);
    const auto& w = m_dataset->weights();
    std::stable_sort(order.begin(), order.end(), [&w](std::int64_t x, std::int64_t y) {
        return w[static_cast<std::size_t>(x)] > w[static_cast<std::size_t>(y)];
    });
    std::size_t k = 0;
    for (; k < order.size() && out.size() < maxChars; ++k) {
        const std::string& t = m_dataset->elementText(static_cast<std::size_t>(order[k]));
        if (t.empty())
            continue;
        if (!out.isEmpty())
            out += QLatin1Char(' ');
        out += QString::fromStdString(t);
    }
    if (k < order.size())
        out += QStringLiteral(" ...");
    return out;
}

QStringList ItemPresenter::describe(std::int64_t item) const
{
    QStringList lines;
    if (item < 0 || !m_dataset || static_cast<std::size_t>(item) >= m_dataset->size())
        return lines;
    const auto i = static_cast<std::size_t>(item);
    lines << QStringLiteral("item %1  ·  %2").arg(item).arg(QString::fromLatin1(data::splitName(m_dataset->split(i))));
    for (const data::LabelSet& ls : m_dataset->labelSets()) {
        const std::int32_t l = ls.labels[i];
        lines << QStringLiteral("%1: %2").arg(QString::fromStdString(ls.name),
                                              l >= 0 ? QString::fromStdString(ls.classNames[static_cast<std::size_t>(l)])
                                                     : QStringLiteral("unlabelled"));
    }
    if (m_dataset->hasElementText())
        lines << words(item);
    else if (m_dataset->setSize(i) > 1)
        lines << QStringLiteral("a set of %1 elements").arg(m_dataset->setSize(i));
    return lines;
}

QImage ItemPresenter::thumbnail(std::int64_t item) const
{
    if (item < 0 || !m_dataset || !m_dataset->hasImages() || static_cast<std::size_t>(item) >= m_dataset->size())
        return {};
    const data::ImageFormat& f = m_dataset->imageFormat();
    const std::uint8_t* px = m_dataset->image(static_cast<std::size_t>(item));
    QImage img(f.width, f.height, QImage::Format_RGB888);
    for (int y = 0; y < f.height; ++y) {
        std::uint8_t* d = img.scanLine(y);
        for (int x = 0; x < f.width; ++x) {
            const std::uint8_t* s = px + (static_cast<std::size_t>(y) * f.width + x) * f.channels;
            d[3 * x] = s[0];
            d[3 * x + 1] = f.channels >= 3 ? s[1] : s[0];
            d[3 * x + 2] = f.channels >= 3 ? s[2] : s[0];
        }
    }
    return img;
}

std::vector<QPointF> ItemPresenter::glyph(std::int64_t item, std::size_t maxPoints) const
{
    std::vector<QPointF> out;
    if (item < 0 || !m_dataset || static_cast<std::size_t>(item) >= m_dataset->size() || maxPoints == 0)
        return out;
    const data::ItemView v = m_dataset->item(static_cast<std::size_t>(item));
    if (v.count < 2 || v.dim < 1)
        return out;
    const std::size_t stride = (v.count + maxPoints - 1) / maxPoints;
    const std::size_t d = static_cast<std::size_t>(v.dim);
    std::vector<double> x;
    std::size_t n = 0;
    for (std::size_t e = 0; e < v.count; e += stride, ++n)
        for (std::size_t j = 0; j < d; ++j)
            x.push_back(v.values[e * d + j]);
    std::vector<double> mean(d, 0.0);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < d; ++j)
            mean[j] += x[i * d + j] / static_cast<double>(n);
    for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < d; ++j)
            x[i * d + j] -= mean[j];
    out.resize(n);
    if (d <= 2) {
        for (std::size_t i = 0; i < n; ++i)
            out[i] = QPointF(x[i * d], d == 2 ? x[i * d + 1] : 0.0);
    } else {
        const std::vector<double> a = principalAxis(x, n, d, {});
        const std::vector<double> b = principalAxis(x, n, d, a);
        for (std::size_t i = 0; i < n; ++i) {
            double p = 0.0, q = 0.0;
            for (std::size_t j = 0; j < d; ++j) {
                p += x[i * d + j] * a[j];
                q += x[i * d + j] * b[j];
            }
            out[i] = QPointF(p, q);
        }
    }
    double extent = 0.0;
    for (const QPointF& p : out)
        extent = std::max({extent, std::abs(p.x()), std::abs(p.y())});
    if (extent > 0.0)
        for (QPointF& p : out)
            p /= extent;
    return out;
}

ItemPresenter::GraphGlyph ItemPresenter::graphGlyph(std::int64_t item, std::size_t maxNodes) const
{
    GraphGlyph out;
    if (item < 0 || !m_dataset || !m_dataset->hasEdges() || static_cast<std::size_t>(item) >= m_dataset->size())
        return out;
    const auto i = static_cast<std::size_t>(item);
    const std::span<const std::int32_t> pairs = m_dataset->edges(i);
    layout::GraphLayoutOptions options;
    options.maxNodes = maxNodes;
    const layout::GraphLayout layout = layout::layoutGraph(m_dataset->setSize(i), pairs, options);
    const std::size_t n = layout.nodeCount();
    if (n == 0)
        return out;
    double x0 = layout.xy[0], x1 = x0, y0 = layout.xy[1], y1 = y0;
    for (std::size_t k = 1; k < n; ++k) {
        x0 = std::min(x0, layout.xy[2 * k]);
        x1 = std::max(x1, layout.xy[2 * k]);
        y0 = std::min(y0, layout.xy[2 * k + 1]);
        y1 = std::max(y1, layout.xy[2 * k + 1]);
    }
    const double cx = (x0 + x1) / 2.0, cy = (y0 + y1) / 2.0;
    const double half = std::max(x1 - x0, y1 - y0) / 2.0;
    const double scale = half > 0.0 ? 1.0 / half : 1.0;
    out.nodes.resize(n);
    for (std::size_t k = 0; k < n; ++k)
        out.nodes[k] = QPointF((layout.xy[2 * k] - cx) * scale, (layout.xy[2 * k + 1] - cy) * scale);
    for (std::size_t k = 0; k + 1 < pairs.size(); k += 2) {
        const auto a = static_cast<std::size_t>(pairs[k]), b = static_cast<std::size_t>(pairs[k + 1]);
        if (a != b && a < n && b < n)
            out.segments.emplace_back(out.nodes[a], out.nodes[b]);
    }
    return out;
}

void ItemPresenter::initializeGL(QOpenGLFunctions_3_3_Core* gl)
{
    m_gl = gl;
    GLuint tex = 0;
    gl->glGenTextures(1, &tex);
    gl->glBindTexture(GL_TEXTURE_2D, tex);
    gl->glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    gl->glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    gl->glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_CLAMP_TO_EDGE);
    gl->glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_CLAMP_TO_EDGE);
    gl->glBindTexture(GL_TEXTURE_2D, 0);
    m_texture = tex;
    m_textureItem = -1;
}

void ItemPresenter::cleanupGL()
{
    if (m_gl && m_texture) {
        GLuint tex = m_texture;
        m_gl->glDeleteTextures(1, &tex);
    }
    m_texture = 0;
    m_gl = nullptr;
    m_textureItem = -1;
}

void ItemPresenter::drawCard(std::int64_t item, std::uint32_t glyphColor)
{
    const QStringList lines = describe(item);
    if (lines.isEmpty())
        return;
    const auto i = static_cast<std::size_t>(item);
    ImGui::TextUnformatted(lines.front().toStdString().c_str());
    ImGui::Separator();
    const float box = ImGui::GetTextLineHeight();
    const std::vector<data::LabelSet>& sets = m_dataset->labelSets();
    for (std::size_t s = 0; s < sets.size(); ++s) {
        const std::int32_t l = sets[s].labels[i];
        const std::string text = lines[static_cast<int>(s) + 1].toStdString();
        if (l >= 0) {
            ImGui::ColorButton("##l", toImVec4(Palette::color(l)), ImGuiColorEditFlags_NoTooltip | ImGuiColorEditFlags_NoBorder,
                               ImVec2(box, box));
            ImGui::SameLine();
            ImGui::TextUnformatted(text.c_str());
        } else {
            ImGui::TextDisabled("%s", text.c_str());
        }
    }
    if (m_dataset->hasImages() && m_gl && m_texture) {
        const data::ImageFormat& f = m_dataset->imageFormat();
        if (m_textureItem != item) {
            const QImage img = thumbnail(item).convertToFormat(QImage::Format_RGBA8888);
            m_gl->glBindTexture(GL_TEXTURE_2D, m_texture);
            m_gl->glPixelStorei(GL_UNPACK_ALIGNMENT, 4);
            m_gl->glTexImage2D(GL_TEXTURE_2D, 0, GL_RGBA8, img.width(), img.height(), 0, GL_RGBA, GL_UNSIGNED_BYTE,
                               img.constBits());
            m_gl->glBindTexture(GL_TEXTURE_2D, 0);
            m_textureItem = item;
        }
        ImGui::Image(reinterpret_cast<ImTextureID>(static_cast<std::intptr_t>(m_texture)),
                     ImVec2(float(f.width * 3), float(f.height * 3)));
    }
    if (m_glyphItem != item) {
        // At most kCardGlyphPoints elements: the projection of a 300-d document of two
        // thousand words would otherwise cost tens of milliseconds on the GUI thread per
        // newly hovered item; a few hundred points draw the same shape at this size.
        constexpr std::size_t kCardGlyphPoints = 400;
        // A graph's layout costs O(n^3) once and O(n^2) per iteration: 200 nodes take about
        // 0.1 s, 500 about 1.5 s on a busy 2-core machine (tst_GraphLayout's boundedWork
        // prints it); the card pays it once per newly hovered item, on the GUI thread.
        constexpr std::size_t kCardGraphNodes = 200;
        if (m_dataset->hasEdges()) {
            m_graphGlyph = graphGlyph(item, kCardGraphNodes);
            m_glyph.clear();
        } else {
            m_glyph = glyph(item, kCardGlyphPoints);
            m_graphGlyph = {};
        }
        m_glyphItem = item;
    }
    if (!m_graphGlyph.nodes.empty() && !m_dataset->hasImages()) {
        const float side = 9.0f * box;
        const ImVec2 p0 = ImGui::GetCursorScreenPos();
        ImGui::Dummy(ImVec2(side, side));
        ImDrawList* dl = ImGui::GetWindowDrawList();
        dl->AddRect(p0, ImVec2(p0.x + side, p0.y + side), IM_COL32(255, 255, 255, 40));
        const ImU32 node = IM_COL32((glyphColor >> 16) & 0xff, (glyphColor >> 8) & 0xff, glyphColor & 0xff, 255);
        const ImU32 edge = IM_COL32(kGraphEdgeGrey, kGraphEdgeGrey, kGraphEdgeGrey, 255);
        const std::size_t n = m_graphGlyph.nodes.size();
        const float half = side / 2.0f - 6.0f, r = n > 100 ? 1.5f : (n > 40 ? 2.0f : 3.0f);
        auto at = [&](const QPointF& p) {
            return ImVec2(p0.x + side / 2.0f + float(p.x()) * half, p0.y + side / 2.0f - float(p.y()) * half);
        };
        for (const auto& [a, b] : m_graphGlyph.segments)
            dl->AddLine(at(a), at(b), edge, 2.0f);
        for (const QPointF& p : m_graphGlyph.nodes)
            dl->AddCircleFilled(at(p), r, node, 8);
    } else if (!m_glyph.empty() && !m_dataset->hasImages()) {
        const float side = 6.0f * box;
        const ImVec2 p0 = ImGui::GetCursorScreenPos();
        ImGui::Dummy(ImVec2(side, side));
        ImDrawList* dl = ImGui::GetWindowDrawList();
        dl->AddRect(p0, ImVec2(p0.x + side, p0.y + side), IM_COL32(255, 255, 255, 40));
        const ImU32 col = IM_COL32((glyphColor >> 16) & 0xff, (glyphColor >> 8) & 0xff, glyphColor & 0xff, 230);
        const float r = m_glyph.size() > 300 ? 1.0f : 2.0f, half = side / 2.0f - 4.0f;
        for (const QPointF& p : m_glyph)
            dl->AddCircleFilled(ImVec2(p0.x + side / 2.0f + float(p.x()) * half, p0.y + side / 2.0f - float(p.y()) * half),
                                r, col, 6);
    }
    for (int k = static_cast<int>(sets.size()) + 1; k < lines.size(); ++k) {
        ImGui::PushTextWrapPos(ImGui::GetFontSize() * 22.0f);
        ImGui::TextUnformatted(lines[k].toStdString().c_str());
        ImGui::PopTextWrapPos();
    }
}

} // namespace setscope::gui
