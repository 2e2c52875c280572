// SPDX-License-Identifier: GPL-3.0-or-later
// SPDX-FileCopyrightText: 2026 setscope developers
#pragma once

#include "core/workspace/Retrieval.h"
#include "gui/views/ExplorerView.h"

#include <memory>
#include <optional>
#include <vector>

class QCheckBox;
class QComboBox;
class QLabel;
class QPushButton;
class QSpinBox;
class QTableWidget;

namespace setscope::model {
class ModelHandle;
}

namespace setscope::gui {

/// Retrieval (issue 10 §4; seed 001 §7.7): the current item as a query, its top K by the
/// learned embedding and by exact EMD side by side, each hit marked correct or wrong by the
/// query's label, recall-hit / recall-class / precision at K for both lists and the measured
/// time of each path (encoding + FAISS search against the exact, pruned EMD search).
///
/// The model is the live run's (its newest snapshot) unless a checkpoint was loaded; the
/// database (every item embedded) is computed once per model, in the first query's job.
/// Follows the current item when "Follow" is on. Double-clicking a hit makes it the query.
class RetrievalView final : public ExplorerView {
    Q_OBJECT
public:
    RetrievalView(Session* session, SelectionModel* selection, QWidget* parent = nullptr);
    ~RetrievalView() override;

    /// Uses `model` (null: none) described as `what` ("live run, step 120", a file name).
    /// A model that does not fit the dataset is refused with the reason in the status line.
    void setModel(std::shared_ptr<const model::ModelHandle> model, const QString& what);
    std::shared_ptr<const model::ModelHandle> model() const { return m_model; }
    /// Takes the live run's model when no checkpoint was loaded (called on new snapshots).
    void refreshLiveModel();
    /// Loads a checkpoint (on the GUI thread: a setscope checkpoint loads in about a second).
    bool loadCheckpoint(const QString& path);

    /// Retrieves for `query` now (false, and why in the status line, when it cannot).
    bool retrieve(std::int64_t query);
    std::int64_t query() const { return m_query; }
    /// The last result (null before one finished).
    const workspace::RetrievalResult* result() const { return m_result ? &*m_result : nullptr; }

    QTableWidget* embeddingTable() const { return m_embTable; }
    QTableWidget* emdTable() const { return m_emdTable; }
    QSpinBox* kSpin() const { return m_k; }
    QLabel* summaryLabel() const { return m_summary; }
    QString toSvg() const override;

protected:
    void onDatasetChanged() override;
    void onCurrentChanged(std::int64_t item) override;
    std::int64_t shownItem() const override { return m_query; }

private:
    void showResult();
    void fillTable(QTableWidget* table, const std::vector<workspace::RetrievalHit>& hits) const;
    void updateHeader();
    void chooseCheckpoint();
    void showOnMap();

    std::shared_ptr<const model::ModelHandle> m_model;
    QString m_modelWhat;
    bool m_checkpointLoaded = false;
    std::shared_ptr<const std::vector<float>> m_database; ///< of m_model
    std::int64_t m_query = -1;
    std::optional<workspace::RetrievalResult> m_result;

    QLabel* m_header = nullptr;
    QLabel* m_modelLabel = nullptr;
    QSpinBox* m_k = nullptr;
    QComboBox* m_candidates = nullptr;
    QCheckBox* m_follow = nullptr;
    QPushButton* m_run = nullptr;
    QPushButton* m_cancel = nullptr;
    QTableWidget* m_embTable = nullptr;
    QTableWidget* m_emdTable = nullptr;
    QLabel* m_summary = nullptr;
};

} // namespace setscope::gui
