Feature: Fomantic UI's menus
  Menu bars with links, dropdowns and search inputs.

  Background:
    Given I open 'fomantic-ui@2.9.4/package/examples/components/menu.html' in the browser

  Scenario: A search input in a menu bar
    When I type 'quarterly report' into the first 'Search' field
    Then I should see 'quarterly report'

  Scenario: Menu links
    Then I should see at least 3 'Link'
    And I should see 'Dropdown'

  Scenario: The second search box
    When I type 'second box' into the second 'Search' field
    Then I should see 'second box'
