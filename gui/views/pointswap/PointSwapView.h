// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/workspace/AugmentPreview.h"
#include "gui/views/ExplorerView.h"

#include <map>
#include <optional>

class QComboBox;
class QLabel;
class QPushButton;
class QSlider;
class QSpinBox;
class QTableWidget;
class QTextBrowser;

namespace setscope::gui {

class SetGlyph;

/// PointSwap (issue 10 §4; seed 001 §4.2, Eq. 6, Tables 11-12): the current item, its
/// EMD-nearest item of the train split, and what one augmentation changed: a table of the
/// substitutions (original → substitute with the flow f_ij), the document before and after
/// with the changed words highlighted, or, for point sets and images, the elements drawn in
/// 2-D with the changed ones marked. The ω slider (p for PointDrop, λ for PointMixup)
/// re-samples at once; "Re-sample" draws again with the next seed. PointDrop and PointMixup
/// are there for comparison, as in Table 12. The partner is searched once per item.
class PointSwapView final : public ExplorerView {
    Q_OBJECT
public:
    PointSwapView(Session* session, SelectionModel* selection, QWidget* parent = nullptr);
    ~PointSwapView() override;

    /// Augments `item` with the current controls (false, and why in the status line, when it
    /// cannot).
    bool augment(std::int64_t item);
    std::int64_t item() const { return m_item; }
    /// The last result (null before one finished).
    const workspace::AugmentPreview* preview() const { return m_preview ? &*m_preview : nullptr; }

    /// The controls (for tests and scripting): method 0 PointSwap, 1 PointDrop, 2 PointMixup.
    void setMethod(workspace::AugmentMethod m);
    /// ω, p or λ (whichever the method uses), 0..1 in steps of 0.01.
    void setValue(double v);
    double value() const;
    QTableWidget* table() const { return m_table; }
    QTextBrowser* documentView() const { return m_document; }
    SetGlyph* glyph() const { return m_glyph; }
    QString toSvg() const override;

protected:
    void onDatasetChanged() override;
    void onCurrentChanged(std::int64_t item) override;
    std::int64_t shownItem() const override { return m_item; }

private:
    workspace::AugmentRequest request() const;
    void showPreview();
    void showDocument();
    void showGlyph();
    void updateValueLabel();

    std::int64_t m_item = -1;
    std::map<std::int64_t, workspace::Partner> m_partners; ///< EMD-nearest partners found so far
    std::optional<workspace::AugmentPreview> m_preview;

    QLabel* m_header = nullptr;
    QLabel* m_partnerLabel = nullptr;
    QComboBox* m_method = nullptr;
    QComboBox* m_variant = nullptr;
    QSlider* m_slider = nullptr;
    QLabel* m_valueLabel = nullptr;
    QSpinBox* m_seed = nullptr;
    QPushButton* m_resample = nullptr;
    QTableWidget* m_table = nullptr;
    QTextBrowser* m_document = nullptr;
    SetGlyph* m_glyph = nullptr;
};

} // namespace setscope::gui
